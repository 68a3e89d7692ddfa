package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Session is one working memory with its agenda and trace: the unit a caller drives
// cycle by cycle. Engine wraps a Session in the FSM loop; hosts that only need decisions
// (such as the GGS filter) drive a Session directly. A Session is not safe for
// concurrent use; run one per goroutine. Sessions share their immutable RuleSet.
type Session struct {
	rs      *ruleset.RuleSet
	wm      *WorkingMemory
	opts    options
	x       Exchanger // the clock, ids, effector calls, rule source and epilogue
	stopAt  int64     // the exchanger's cancellation point (seq), 0 for none
	tracer  tracer
	vm      vm.VM
	decided []uint8 // each rule's outcome from the matcher (cond.True, False, VM)

	cycle    int
	firings  [keepFirings]Firing // ring of the last firings, for runaway errors
	nFirings int
	ring     int // the slot of firings the next firing takes: nFirings % keepFirings
	// firedAt is, per rule, 1 + the memory's revision when it last fired, 0 if it has
	// not: revisions only grow, so no kind the rule reads has changed since while its
	// recency is below it.
	firedAt []uint64
	// lastFiredAt is the last firing's firedAt: no rule's is above it, since the
	// revisions only grow (a reload keeps some of the values).
	lastFiredAt uint64
	requested   string // transition requested by the last rule fired

	// reused per cycle
	cyc         cycleState  // what the last cycle kept, from which res is built when read
	res         CycleResult // built from cyc by LastCycle
	evals       []trace.RuleEval
	sharedEvals bool             // evals is a leaf's list in leaves, not to be written
	own         []trace.RuleEval // the session's own list, which evals is when not shared
	leaves      leafCache        // evaluation lists by leaf of the matcher's table
	cset        []candidate
	agenda      agenda // the conflict set's agenda, unless a leaf's holds

	objEvals []ObjectiveEval // the scored objectives' values, reused per cycle
}

// NewSession starts a session over a rule set. It writes the trace header at once.
func NewSession(rs *ruleset.RuleSet, opt ...Option) *Session {
	o := defaultOptions()
	for _, f := range opt {
		f(&o)
	}
	s := &Session{
		rs:      rs,
		opts:    o,
		firedAt: make([]uint64, len(rs.Rules())),
		evals:   make([]trace.RuleEval, 0, len(rs.Rules())),
		agenda:  agenda{names: make([]string, 0, len(rs.Rules()))}, // never nil: an empty conflict set is []
	}
	s.x = o.exchanger
	if s.x == nil {
		s.x = &live{s: s, clock: o.clock, ids: o.ids}
		if o.overLive != nil {
			s.x = o.overLive(s.x)
		}
	}
	s.stopAt = s.x.StopAt()
	s.tracer = tracer{sink: o.sink, clock: s.x, discard: o.sink == trace.Discard}
	if o.runID == "" {
		o.runID = s.x.NewID()
		s.opts.runID = o.runID
	}
	// WithRecordedRules names the rule file as a recording's header did.
	rules := trace.RulesRef{Name: rs.Name(), Path: cmp.Or(o.rulesPath, rs.Path()), Hash: rs.Hash(), Source: rs.Source()}
	if o.noRulesSource {
		rules.Source = ""
	}
	s.tracer.emit(trace.KindHeader, trace.Header{
		Format: trace.Format, Run: o.runID, Rules: rules,
		Params: s.tracer.paramsJSON(rs), Meta: o.meta,
		Limits: trace.Limits{MaxIterations: o.maxIterations, MaxFirings: o.maxFirings},
	})
	s.wm = NewWorkingMemory(rs, s.observe)
	s.wm.observerKeeps = false // the tracer's sink must not keep events
	if s.tracer.discard {
		s.wm.counter = &s.tracer.own // a discarded fact event only takes a seq
	}
	return s
}

// paramsJSON is the header's params: the rule set's parameters by name. Parameters
// that do not encode (a NaN) are the trace's first error, as a body the sink cannot
// encode would be, and the header records them as null.
func (t *tracer) paramsJSON(rs *ruleset.RuleSet) json.RawMessage {
	b, err := json.Marshal(rs.ParamMap())
	if err != nil {
		if t.err == nil {
			t.err = fmt.Errorf("trace: encoding header event: params: %w", err)
		}
		return nil
	}
	return b
}

// observe writes a fact change's event. A session whose sink discards every event is
// not called: its working memory only counts the change (see NewSession).
func (s *Session) observe(op string, f Fact) {
	kind := trace.KindFactAsserted
	switch op {
	case OpUpdate:
		kind = trace.KindFactUpdated
	case OpRetract:
		kind = trace.KindFactRetracted
	}
	body, err := factChange(f)
	if err != nil {
		s.tracer.failSeq(kind, err)
		return
	}
	s.tracer.emit(kind, body)
}

// RunID is the id written in the trace header.
func (s *Session) RunID() string { return s.opts.runID }

// RuleSet returns the session's rule set.
func (s *Session) RuleSet() *ruleset.RuleSet { return s.rs }

// Memory gives read access to the working memory. Change facts through the Session so
// that changes are traced.
func (s *Session) Memory() *WorkingMemory { return s.wm }

// Assert adds a fact; see WorkingMemory.Assert.
func (s *Session) Assert(kind, id string, payload any) (Fact, error) {
	return s.wm.Assert(kind, id, payload)
}

// Update changes an existing fact; see WorkingMemory.Update.
func (s *Session) Update(kind, id string, payload any) (Fact, error) {
	return s.wm.Update(kind, id, payload)
}

// Put asserts or updates a fact; see WorkingMemory.Put.
func (s *Session) Put(kind, id string, payload any) (Fact, error) {
	return s.wm.Put(kind, id, payload)
}

// Set is Put for callers that do not need the stored fact back; see WorkingMemory.Set.
func (s *Session) Set(kind, id string, payload any) error {
	return s.wm.Set(kind, id, payload)
}

// Retract removes a fact; see WorkingMemory.Retract.
func (s *Session) Retract(kind, id string) error {
	_, err := s.wm.Retract(kind, id)
	return err
}

// Get returns a fact; see WorkingMemory.Get.
func (s *Session) Get(kind, id string) (Fact, bool) { return s.wm.Get(kind, id) }

// Query returns the facts of a kind; see WorkingMemory.Query.
func (s *Session) Query(kind string) []Fact { return s.wm.Query(kind) }

// Objective returns the name of the current objective, "" before any rule set one.
func (s *Session) Objective() string { return s.wm.builtin(objectiveIndex, 0) }

// objectiveRule is the rule that set the current objective.
func (s *Session) objectiveRule() string { return s.wm.builtin(objectiveIndex, 1) }

// Emit writes a host event into the trace. body must encode as a JSON object without the
// keys seq, t and kind, which every event line starts with, and h, which ends it; a body
// that breaks this is recorded as an emit_error event instead, so the trace stays
// readable.
func (s *Session) Emit(kind string, body any) {
	if err := checkHostBody(body); err != nil {
		s.tracer.emit(trace.KindEmitError, trace.EmitError{Kind: kind, Error: err.Error()})
		return
	}
	s.tracer.emit(kind, body)
}

func checkHostBody(body any) error {
	b, err := json.Marshal(body)
	if err != nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(b, &keys); err != nil {
		return fmt.Errorf("the body does not encode as a JSON object")
	}
	for _, k := range []string{"seq", "t", "kind", "h"} {
		if _, ok := keys[k]; ok {
			return fmt.Errorf("the body has the reserved key %q", k)
		}
	}
	return nil
}

// Flush flushes the trace sink and returns the first trace error seen so far.
func (s *Session) Flush() error {
	if s.tracer.discard { // nothing was written
		return s.tracer.err
	}
	s.tracer.flush()
	return s.tracer.err
}

// Err returns the first trace error seen, if any. A session whose trace failed keeps
// working, but the engine stops at the next cycle boundary.
func (s *Session) Err() error { return s.tracer.err }

// setState records the FSM state as a fact so rules can match on it.
func (s *Session) setState(name string, iteration int) {
	s.wm.putBuiltin(stateIndex, name, "", iteration)
}

// tracer stamps events with seq and time and hands them to the sink. It takes exactly
// one clock reading per event, so an exchanger that serves recorded readings in order
// reproduces every timestamp. Effectors may journal from their own goroutines, hence
// the lock around writes and the atomic seq: an event that is not written (the sink is
// trace.Discard) only takes the next seq, which needs no lock.
//
// With trace.Discard, the session's own goroutine counts its events in own, a plain
// counter, and adds them to seq before an effector runs (publish): a cycle of such a
// session, which runs no effector, then takes no atomic operation. The journal, which
// effectors call during their call, counts in seq after what was published.
type tracer struct {
	discard bool // the sink is trace.Discard
	mu      sync.Mutex
	sink    trace.Sink
	clock   clock.Clock
	seq     atomic.Int64
	own     int64 // with trace.Discard: the session goroutine's events not yet in seq
	ev      trace.Event
	err     error
}

// emit writes an event stamped with the next clock reading and returns the reading and
// the event's seq.
func (t *tracer) emit(kind string, body any) (time.Time, int64) {
	if t.discard {
		// Nobody reads the events: keep seq, skip the clock and the encoding.
		t.own++
		return time.Time{}, t.count()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.write(t.clock.Now(), kind, body)
}

// skip counts an event that is not written because the sink discards everything.
func (t *tracer) skip() { t.own++ }

// count is the seq of the last event; only the session's goroutine may call it.
func (t *tracer) count() int64 { return t.seq.Load() + t.own }

// publish adds the events the session's goroutine counted to seq, before an effector,
// which may journal from other goroutines, runs.
func (t *tracer) publish() {
	if t.own != 0 {
		t.seq.Add(t.own)
		t.own = 0
	}
}

// journalSeq is the seq of an event the journal takes and does not write (the sink
// discards everything): it may be called from an effector's goroutines, while the
// session's goroutine waits for the effector (see publish).
func (t *tracer) journalSeq() int64 { return t.seq.Add(1) }

// emitAt writes an event stamped with a reading the caller already took.
func (t *tracer) emitAt(at time.Time, kind string, body any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.write(at, kind, body)
}

func (t *tracer) write(at time.Time, kind string, body any) (time.Time, int64) {
	t.publish() // own is 0 unless the session's goroutine writes to a discarding sink
	t.ev = trace.Event{Seq: t.seq.Add(1), Time: at, Kind: kind, Body: body}
	if err := t.sink.Write(&t.ev); err != nil && t.err == nil {
		t.err = err
	}
	return at, t.ev.Seq
}

// canceled reports the context's error, and cancellation where the exchanger places it
// (a recorded run is stopped where it was cancelled).
func (s *Session) canceled(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.stopAt > 0 && s.tracer.count()+1 == s.stopAt {
		return context.Canceled
	}
	return nil
}

// Cycle runs one agenda cycle over every rule; see the package documentation.
func (s *Session) Cycle(ctx context.Context) (*CycleResult, error) {
	return s.runCycle(ctx, false)
}

// Bind binds a singleton fact kind to a host's struct; see WorkingMemory.Bind.
func (s *Session) Bind(kind string, src any) (*Binding, error) { return s.wm.Bind(kind, src) }
