package telemetry

import (
	"encoding/json"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// span is one span to be, as read from the trace: the conversion builds the whole tree
// first, so a parent's times can enclose its children's before anything is started.
type span struct {
	key       string // what its id derives from: "<type>/<seq of the opening event>"
	name      string
	kind      oteltrace.SpanKind
	start     time.Time
	end       time.Time
	attrs     []attribute.KeyValue
	events    []spanEvent
	status    codes.Code
	statusMsg string
	children  []*span
}

type spanEvent struct {
	name  string
	t     time.Time
	attrs []attribute.KeyValue
}

func newSpan(typ string, seq int64, name string, t time.Time) *span {
	return &span{key: fmt.Sprintf("%s/%d", typ, seq), name: name, start: t, end: t}
}

// touch widens s to cover t.
func (s *span) touch(t time.Time) {
	if t.Before(s.start) {
		s.start = t
	}
	if t.After(s.end) {
		s.end = t
	}
}

func (s *span) event(name string, t time.Time, attrs ...attribute.KeyValue) {
	s.events = append(s.events, spanEvent{name: name, t: t, attrs: attrs})
	s.touch(t)
}

// enclose widens every span to cover its children, bottom up: a model call's start is
// its recorded end less its recorded duration, which may fall before the first event
// of its role.
func (s *span) enclose() {
	for _, c := range s.children {
		c.enclose()
		s.touch(c.start)
		s.touch(c.end)
	}
}

// builder walks a trace's events in order and grows the span tree.
type builder struct {
	opts  Options
	meta  map[string]string
	run   *span
	round *span // the current round, nil before the first transition
	iter  int
	role  *span // the current role within the round, nil between roles
	// roleName is the role that acted last; a tool call or a check belongs to it.
	roleName string
	// signals holds the round's last signals fact, written on the round at its close.
	signals map[string]any
}

// plan builds the span tree of a read trace. Its first event must be its header.
func plan(f *trace.File, opts Options) (*span, error) {
	h, ok := f.Header()
	if !ok {
		return nil, fmt.Errorf("%s: not a spine trace (want a header as its first line)", f.Name)
	}
	if h.Run == "" {
		return nil, fmt.Errorf("%s:1: header names no run", f.Name)
	}
	b := &builder{opts: opts, meta: h.Meta}
	first := &f.Events[0]
	b.run = newSpan("run", first.Seq, "spine run", first.Time)
	b.run.attrs = runAttrs(h)
	if note := chainNote(f); note != "" {
		b.run.attrs = append(b.run.attrs, attribute.String("spine.trace.chain", note))
	}
	for i := range f.Events[1:] {
		b.add(&f.Events[i+1])
	}
	b.closeRound()
	// A trace torn or cut before its halt; one of messages only has no halt to miss.
	if why := f.Incomplete(); why != "" {
		b.run.attrs = append(b.run.attrs, attribute.Bool("spine.incomplete", true))
		b.run.status, b.run.statusMsg = codes.Error, why
	}
	b.run.enclose()
	return b.run, nil
}

func (b *builder) add(ev *trace.Event) {
	switch body := ev.Body.(type) {
	case trace.Transition:
		if b.round == nil || body.Iteration != b.iter {
			b.openRound(ev, body.Iteration)
		}
		b.round.event("spine.transition", ev.Time,
			attribute.String("spine.from", body.From),
			attribute.String("spine.to", body.To),
			attribute.String("spine.event", body.Event))
	case trace.RuleFired:
		b.at().event("spine.rule_fired", ev.Time,
			attribute.String("spine.rule", body.Rule),
			attribute.Int("spine.salience", body.Salience),
			attribute.Int("spine.cycle", body.Cycle),
			attribute.String("spine.objective", thenObjective(body.Then)))
	case trace.RuleError:
		s := b.at()
		s.event("spine.rule_error", ev.Time,
			attribute.String("spine.rule", body.Rule),
			attribute.Int("spine.cycle", body.Cycle),
			attribute.StringSlice("spine.errors", body.Errors))
	case trace.ConflictSet:
		attrs := []attribute.KeyValue{
			attribute.String("spine.stage", body.Stage),
			attribute.Int("spine.cycle", body.Cycle),
			attribute.StringSlice("spine.conflict_set", body.ConflictSet),
		}
		if body.Fired != "" {
			attrs = append(attrs, attribute.String("spine.fired", body.Fired), attribute.String("spine.decided_by", body.DecidedBy))
		}
		b.at().event("spine.conflict_set", ev.Time, attrs...)
	case trace.FactChange:
		b.fact(ev, body)
	case trace.EffectorResult:
		attrs := []attribute.KeyValue{
			attribute.String("spine.op", body.Op),
			attribute.Int("spine.call", body.Call),
			attribute.Int64("spine.duration_ms", body.DurationMS),
		}
		if body.Error != "" {
			attrs = append(attrs, attribute.String("spine.error", excerpt(body.Error, maxText)))
		}
		b.endRole()
		b.at().event("spine.effector", ev.Time, attrs...)
	case trace.Exchange:
		b.exchange(ev, body)
	case trace.Message:
		r := b.roleFor(ev, body.From)
		r.event("spine.message", ev.Time,
			attribute.String("spine.message.from", body.From),
			attribute.String("spine.message.to", body.To),
			attribute.String("spine.message.type", body.Type),
			attribute.String("spine.task_id", body.TaskID))
		if body.Type == contract.TypeFinalResult {
			b.run.attrs = append(b.run.attrs, finalAttrs(body.Payload)...)
		}
	case trace.Halt:
		b.closeRound()
		b.run.touch(ev.Time)
		b.run.attrs = append(b.run.attrs,
			attribute.String("spine.outcome", body.Outcome),
			attribute.String("spine.objective", body.Objective),
			attribute.Int("spine.iterations", body.Iterations),
			attribute.Int("spine.firings", body.Firings))
		switch body.Outcome {
		case "success":
			b.run.status = codes.Ok
		case "error", "canceled":
			b.run.status, b.run.statusMsg = codes.Error, excerpt(body.Outcome+": "+body.Reason, maxText)
		}
		if body.Reason != "" {
			b.run.attrs = append(b.run.attrs, attribute.String("spine.reason", excerpt(body.Reason, maxText)))
		}
	case trace.Audit:
		f := body.Finding
		b.run.event("spine.audit", ev.Time,
			attribute.String("spine.audit.kind", f.Kind),
			attribute.String("spine.audit.severity", f.Severity),
			attribute.String("spine.audit.message", excerpt(f.Message, maxText)),
			attribute.Int64Slice("spine.audit.evidence", f.Evidence))
	case trace.Reload:
		name := "spine.rules_reloaded"
		if ev.Kind == trace.KindRulesReloadFailed {
			name = "spine.rules_reload_failed"
		}
		attrs := []attribute.KeyValue{attribute.String("spine.rules.path", body.Path), attribute.String("spine.rules.hash", body.Hash)}
		if body.Error != "" {
			attrs = append(attrs, attribute.String("spine.error", excerpt(body.Error, maxText)))
		}
		b.at().event(name, ev.Time, attrs...)
	default:
		b.at().touch(ev.Time)
	}
}

// at is the span engine events belong on: the current round, or the run before the
// first round and after the halt.
func (b *builder) at() *span {
	if b.round != nil {
		return b.round
	}
	return b.run
}

func (b *builder) openRound(ev *trace.Event, iter int) {
	b.closeRound()
	b.iter = iter
	b.round = newSpan("round", ev.Seq, fmt.Sprintf("round %d", iter), ev.Time)
	b.round.attrs = []attribute.KeyValue{attribute.Int("spine.round", iter)}
	b.run.children = append(b.run.children, b.round)
}

func (b *builder) closeRound() {
	b.endRole()
	if b.round == nil {
		return
	}
	b.round.attrs = append(b.round.attrs, signalAttrs(b.signals)...)
	b.round, b.signals = nil, nil
}

func (b *builder) endRole() {
	b.role, b.roleName = nil, ""
}

// fact records the facts a viewer of the run wants: the objective a rule chose (the
// macro-state), and the round's signals, written on the round when it closes.
func (b *builder) fact(ev *trace.Event, fc trace.FactChange) {
	switch fc.Fact.Kind {
	case "objective":
		var p struct {
			Name string `json:"name"`
			Rule string `json:"rule"`
		}
		_ = json.Unmarshal(fc.Fact.Payload, &p)
		name, rule := p.Name, p.Rule
		s := b.at()
		s.event("spine.macro_state", ev.Time,
			attribute.String("spine.macro_state", name),
			attribute.String("spine.rule", rule))
		// The round's objective is the one it acted on, its first; a terminal one
		// chosen at its end is the run's.
		if b.round != nil && !hasAttr(b.round, "spine.objective") {
			b.round.attrs = append(b.round.attrs, attribute.String("spine.objective", name))
		}
	case "signals":
		var p map[string]any
		if b.round != nil && json.Unmarshal(fc.Fact.Payload, &p) == nil {
			b.signals = p
		}
		b.at().touch(ev.Time)
	default:
		b.at().touch(ev.Time)
	}
}

// roleFor returns the span of role name, opening one when another role acted last.
func (b *builder) roleFor(ev *trace.Event, name string) *span {
	parent := b.at()
	if name == "" {
		return parent
	}
	if b.role != nil && b.roleName == name {
		return b.role
	}
	r := newSpan("role", ev.Seq, "invoke_agent "+name, ev.Time)
	r.attrs = []attribute.KeyValue{
		attribute.String(keyOperation, "invoke_agent"),
		attribute.String(keyAgentName, name),
		attribute.String("spine.role", name),
	}
	parent.children = append(parent.children, r)
	b.role, b.roleName = r, name
	return r
}

// maxCall bounds the duration a call's start is computed from, so a damaged
// duration_ms cannot overflow a time; the attribute keeps what was recorded.
const maxCall = 30 * 24 * time.Hour

func (b *builder) exchange(ev *trace.Event, x trace.Exchange) {
	m, isModel := runlog.Model(x)
	t, isTool := runlog.Tool(x)
	role := m.Role
	if !isModel {
		// A tool call, a check or a memory query belongs to the role that acted last.
		role = b.roleName
	}
	parent := b.roleFor(ev, role)
	d := min(max(x.DurationMS, 0), maxCall.Milliseconds())
	c := newSpan("call", ev.Seq, x.Name, ev.Time.Add(-time.Duration(d)*time.Millisecond))
	c.end = ev.Time
	switch {
	case isModel:
		modelSpan(c, m, x.Error, b.opts, b.meta)
	case isTool:
		toolSpan(c, t, b.opts)
	default:
		c.attrs = []attribute.KeyValue{attribute.String("spine.exchange", x.Name)}
	}
	c.attrs = append(c.attrs, attribute.Int64("spine.seq", ev.Seq), attribute.Int64("spine.duration_ms", x.DurationMS))
	if x.Error != "" {
		c.status, c.statusMsg = codes.Error, excerpt(x.Error, maxText)
	}
	parent.children = append(parent.children, c)
	parent.touch(ev.Time)
}

func hasAttr(s *span, key attribute.Key) bool {
	for _, a := range s.attrs {
		if a.Key == key {
			return true
		}
	}
	return false
}

func thenObjective(t *trace.Then) string {
	if t == nil {
		return ""
	}
	return t.Objective
}

// finalAttrs are the run span's attributes from its FinalResult: how the task ended and
// why, and the graceful failure's next moves when it was abandoned.
func finalAttrs(payload json.RawMessage) []attribute.KeyValue {
	var fr contract.FinalResult
	if json.Unmarshal(payload, &fr) != nil {
		return nil
	}
	attrs := []attribute.KeyValue{attribute.String("spine.final.directive", fr.Directive),
		attribute.String("spine.final.summary", excerpt(fr.Summary, maxText))}
	if fr.Reason != "" {
		attrs = append(attrs, attribute.String("spine.final.reason", fr.Reason))
	}
	if g := fr.Failure; g != nil {
		moves := make([]string, len(g.NextMoves))
		for i, m := range g.NextMoves {
			moves[i] = excerpt(m, maxText)
		}
		attrs = append(attrs, attribute.String("spine.final.graceful_failure", excerpt(g.Summary, maxText)),
			attribute.StringSlice("spine.final.next_moves", moves))
	}
	return attrs
}
