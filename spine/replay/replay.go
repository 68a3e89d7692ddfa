package replay

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Recording is a trace read back for replay: its header, the clock readings of its
// events, and its effector exchanges by call index.
type Recording struct {
	Name   string
	Header trace.Header
	Events []trace.Event
	Torn   *trace.TornLine

	calls      map[int]*recordedCall
	canceledAt int64                  // seq before which the run was cancelled, 0 if it was not
	reloads    map[int64]*trace.Event // rules_reloaded / rules_reload_failed events by seq
	seed       []*trace.Event         // fact changes made before the loop started
	marks      map[int64]*trace.Event // resumed lines between effector calls, by seq (see Continue)
	epilogue   []*trace.Event         // events the host wrote after the halt
}

type recordedCall struct {
	call   *trace.Event
	body   trace.EffectorCall
	nested []*trace.Event
	result *trace.EffectorResult
}

// ReadRecording reads a trace for replay. A torn last line is kept in Torn; the replay
// stops with ErrRecordingEnded where it would need it.
func ReadRecording(path string) (*Recording, error) {
	f, err := trace.ReadFileEvents(path)
	if herr := trace.CheckHeader(path, f, err); herr != nil {
		return nil, herr
	}
	if err != nil {
		return nil, err
	}
	return NewRecording(path, f)
}

// NewRecording indexes a read trace for replay.
func NewRecording(name string, f *trace.File) (*Recording, error) {
	r := &Recording{Name: name, Events: f.Events, Torn: f.Torn, calls: map[int]*recordedCall{}, reloads: map[int64]*trace.Event{}, marks: map[int64]*trace.Event{}}
	h, ok := f.Header()
	if !ok {
		return nil, fmt.Errorf("%s: not a trace: the first line is not a header", name)
	}
	r.Header = h
	if h.Format != trace.Format && h.Format != trace.FormatUnchained {
		return nil, fmt.Errorf("%s:1: trace format %s, this build replays %q and %q", name, linecap.ExcerptString(h.Format), trace.Format, trace.FormatUnchained)
	}
	var open *recordedCall
	loopStarted, halted := false, false
	for i := range f.Events {
		e := &f.Events[i]
		switch b := e.Body.(type) {
		case trace.EffectorCall:
			// The loop has started: observe may call an effector before the first
			// transition, and the facts it asserts are no host's seed.
			loopStarted = true
			open = &recordedCall{call: e, body: b}
			r.calls[b.Call] = open
			if cancelledHere(b) {
				r.canceledAt = e.Seq
			}
		case trace.EffectorResult:
			if open == nil {
				return nil, fmt.Errorf("%s:%d: effector_result without its effector_call", name, e.Line)
			}
			open.result = &b
			open = nil
		case trace.Transition:
			loopStarted = true
		case trace.Reload:
			r.reloads[e.Seq] = e
		case trace.Resumed:
			switch {
			case halted:
				r.epilogue = append(r.epilogue, e)
			case open != nil:
				open.nested = append(open.nested, e)
			default:
				r.marks[e.Seq] = e
			}
		case trace.Halt:
			halted = true
			// A run cancelled without an interrupt call stopped right before its halt.
			if b.Outcome == engine.OutcomeCanceled && r.canceledAt == 0 {
				r.canceledAt = e.Seq
			}
		case trace.FactChange:
			if !loopStarted {
				r.seed = append(r.seed, e)
			}
		default:
			switch {
			case halted:
				r.epilogue = append(r.epilogue, e)
			case open != nil:
				open.nested = append(open.nested, e)
			}
		}
	}
	return r, nil
}

// cancelledHere tells whether a recorded effector call is the interrupt that followed a
// cancellation: the engine made it as the first thing after it saw the context
// cancelled, so a replay is cancelled where the call begins.
func cancelledHere(c trace.EffectorCall) bool {
	if c.Op != "interrupt" {
		return false
	}
	var req engine.InterruptRequest
	return json.Unmarshal(c.Request, &req) == nil && req.Reason == engine.InterruptCancelled
}

// ErrRecordingEnded is returned when a replay needs more of the recording than there is,
// typically because its last line was torn.
var ErrRecordingEnded = errors.New("the recording ends here")

// RecordingError is a recording the replay cannot use although it was read: a line it
// must write again is not in the trace writer's layout, or a fact its host seeded cannot
// be re-applied. The replay fails; it is not the recorded run failing.
type RecordingError struct{ Err error }

func (e *RecordingError) Error() string { return e.Err.Error() }
func (e *RecordingError) Unwrap() error { return e.Err }

// DivergenceError reports a replay whose run asked an effector for something other than
// what the recording holds: the control plane did not do what it did when recorded.
type DivergenceError struct {
	Seq      int64  // seq of the recorded effector_call
	Call     int    // effector call index
	Op       string // mint or gate
	Field    string // JSON path of the first differing field of the request
	Recorded string // its recorded value (JSON)
	Got      string // its value in the replay (JSON)
}

func (e *DivergenceError) Error() string {
	return fmt.Sprintf("replay diverged at seq %d (call %d, %s): request field %s: recorded %s, replay asked %s",
		e.Seq, e.Call, e.Op, cmp.Or(e.Field, "(whole request)"), e.Recorded, e.Got)
}

// Exchanger is the recorded engine.Exchanger: it serves a recording to an engine,
// clock readings in event order, the recorded run id, effector results by call index,
// reloads and the epilogue where the recording has them, and reports a run that departs
// from it. Run makes one per replay.
type Exchanger struct {
	rec  *Recording
	mu   sync.Mutex
	next int // clock readings served
}

// seed re-applies the facts the recorded run's host put before the loop started.
func (r *Exchanger) seed(s *engine.Session) error {
	for _, e := range r.rec.seed {
		f := e.Body.(trace.FactChange).Fact
		if f.Kind == ruleset.KindState || f.Kind == ruleset.KindObjective {
			continue
		}
		var err error
		switch e.Kind {
		case trace.KindFactRetracted:
			err = s.Retract(f.Kind, f.ID)
		default:
			fields := ruleset.Fields{}
			if err := decodeNumbers(f.Payload, &fields); err != nil {
				return fmt.Errorf("%s:%d: %w", r.rec.Name, e.Line, err)
			}
			_, err = s.Put(f.Kind, f.ID, fields)
		}
		if err != nil {
			return fmt.Errorf("%s:%d: re-applying a seeded fact: %w", r.rec.Name, e.Line, err)
		}
	}
	return nil
}

var _ engine.Exchanger = (*Exchanger)(nil)

// Now serves the recorded clock readings in order, then readings a millisecond apart
// past the last one.
func (r *Exchanger) Now() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next++
	n := len(r.rec.Events)
	if r.next <= n {
		return r.rec.Events[r.next-1].Time
	}
	last := time.Time{}
	if n > 0 {
		last = r.rec.Events[n-1].Time
	}
	return last.Add(time.Duration(r.next-n) * time.Millisecond)
}

// NewID is the recorded run id.
func (r *Exchanger) NewID() string { return r.rec.Header.Run }

// StopAt is where the recorded run was cancelled, so the replay stops at the same point.
func (r *Exchanger) StopAt() int64 { return r.rec.canceledAt }

// Makes reports whether the recording holds effector call n with op: the recorded
// effector decides, whatever the replay's is.
func (r *Exchanger) Makes(n int, op string, _ bool) bool {
	rc := r.rec.calls[n]
	return rc != nil && rc.body.Op == op
}

// Exchange checks a replayed effector call against the recording, writes the recorded
// call, its nested exchanges and its result, and decodes the recorded result into into;
// it calls no effector.
func (r *Exchanger) Exchange(_ context.Context, t engine.Tape, body trace.EffectorCall, _ engine.Invoke, into any) (err, stop error) {
	if err := r.writeMarks(t); err != nil {
		return nil, err
	}
	rc := r.rec.calls[body.Call]
	if rc == nil {
		return nil, r.ended(body, "")
	}
	if d := rc.differsFrom(body); d != nil {
		return nil, d
	}
	t.Write(trace.KindEffectorCall, body)
	for _, e := range rc.nested {
		b, err := e.BodyJSON()
		if err != nil {
			return &RecordingError{fmt.Errorf("%s:%d: %w", r.rec.Name, e.Line, err)}, nil
		}
		t.Write(e.Kind, b)
	}
	if rc.result == nil {
		// The call and what it did are recorded, its result was lost with the cut: the
		// replay has written the lines the recording holds, so the intact part compares
		// whole, and stops here.
		return nil, r.ended(body, "the result of ")
	}
	res := rc.result
	t.Write(trace.KindEffectorResult, trace.EffectorResult{Call: body.Call, Op: body.Op, DurationMS: res.DurationMS, Result: res.Result, Error: res.Error})
	if err := r.writeMarks(t); err != nil {
		return nil, err
	}
	if res.Error != "" {
		return recordedError(res.Error), nil
	}
	if err := json.Unmarshal(res.Result, into); err != nil {
		return fmt.Errorf("decoding the recorded %s result of call %d: %w", body.Op, body.Call, err), nil
	}
	return nil, nil
}

// ended is the error of a replay that needs effector call body (or, with what "the
// result of ", its result), which the recording does not hold.
func (r *Exchanger) ended(body trace.EffectorCall, what string) error {
	return fmt.Errorf("%w: the run asked for %seffector call %d (%s), which the recording %s does not hold%s",
		ErrRecordingEnded, what, body.Call, body.Op, r.rec.Name, r.tornNote())
}

func (r *Exchanger) tornNote() string {
	if r.rec.Torn != nil {
		return " (" + r.rec.Torn.String() + ")"
	}
	return ""
}

// decodeNumbers decodes JSON into v keeping numbers as json.Number, so that they are
// compared and re-applied as written.
func decodeNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// firstDifference walks two JSON documents in key order and returns the path of the
// first value that differs and both values. For two trace lines (line) a top-level h
// is compared last: it differs whenever anything in its line or before it does, so a
// field of the event itself is named first and h only when it is all that differs (the
// chain was rewritten).
func firstDifference(a, b []byte, line bool) (path, va, vb string) {
	var x, y any
	if decodeNumbers(a, &x) == nil && decodeNumbers(b, &y) == nil {
		if d, ok := diffValue("", x, y, line); ok {
			return d.path, d.a, d.b
		}
	}
	return "", string(a), string(b)
}

type diffAt struct{ path, a, b string }

// diffValue compares x and y at path; hLast puts a field h last among x's and y's.
func diffValue(path string, x, y any, hLast bool) (diffAt, bool) {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			break
		}
		union := maps.Clone(xv)
		maps.Copy(union, yv)
		names := slices.Sorted(maps.Keys(union))
		if i := slices.Index(names, "h"); hLast && i >= 0 {
			names = append(slices.Delete(names, i, i+1), "h")
		}
		for _, k := range names {
			if d, ok := diffValue(joinPath(path, k), entry(xv, k), entry(yv, k), false); ok {
				return d, true
			}
		}
		return diffAt{}, false
	case []any:
		yv, ok := y.([]any)
		if !ok {
			break
		}
		for i := range max(len(xv), len(yv)) {
			if d, ok := diffValue(fmt.Sprintf("%s[%d]", path, i), element(xv, i), element(yv, i), false); ok {
				return d, true
			}
		}
		return diffAt{}, false
	}
	sx, sy := jsonText(x), jsonText(y)
	if sx == sy {
		return diffAt{}, false
	}
	return diffAt{path, sx, sy}, true
}

// missing stands for a key or an element one side does not have.
type missing struct{}

// entry is m[k], or missing when m has no k.
func entry(m map[string]any, k string) any {
	if v, ok := m[k]; ok {
		return v
	}
	return missing{}
}

// element is l[i], or missing past the end of l.
func element(l []any, i int) any {
	if i < len(l) {
		return l[i]
	}
	return missing{}
}

// Absent is a TraceDiff's Recorded or Replayed when that side has no such field or
// element: which is not the same as a field whose value is null.
const Absent = "(absent)"

func jsonText(v any) string {
	if v == nil {
		return "null"
	}
	if _, ok := v.(missing); ok {
		return Absent
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// TraceDiff is the first difference between two traces.
type TraceDiff struct {
	Line     int    // 1-based
	Field    string // JSON path inside the line, "" when a line is missing
	Recorded string // the recorded value (JSON), or Absent
	Replayed string // the replayed value (JSON), or Absent
}

func (d *TraceDiff) String() string {
	switch {
	case d.Field == "":
		return fmt.Sprintf("line %d: recorded %s, replayed %s", d.Line, d.Recorded, d.Replayed)
	case d.Recorded == Absent:
		return fmt.Sprintf("line %d: recorded has no %s %s, replayed has %s", d.Line, d.what(), d.Field, d.Replayed)
	case d.Replayed == Absent:
		return fmt.Sprintf("line %d: replayed has no %s %s, recorded has %s", d.Line, d.what(), d.Field, d.Recorded)
	}
	return fmt.Sprintf("line %d, field %s: recorded %s, replayed %s", d.Line, d.Field, d.Recorded, d.Replayed)
}

// what names what Field is: an array's element or an object's field.
func (d *TraceDiff) what() string {
	if strings.HasSuffix(d.Field, "]") {
		return "element"
	}
	return "field"
}

// CompareTraces compares two traces line by line and returns the first difference, or
// nil when they are byte-identical. limit > 0 compares only the first limit lines (the
// intact part of a recording with a torn last line).
func CompareTraces(recorded, replayed []byte, limit int) *TraceDiff {
	a := slices.Collect(strings.Lines(string(recorded)))
	b := slices.Collect(strings.Lines(string(replayed)))
	if limit > 0 {
		a, b = a[:min(len(a), limit)], b[:min(len(b), limit)]
	}
	for i := 0; i < len(a) || i < len(b); i++ {
		switch {
		case i >= len(a):
			return &TraceDiff{Line: i + 1, Recorded: "(end of trace)", Replayed: strings.TrimSpace(b[i])}
		case i >= len(b):
			return &TraceDiff{Line: i + 1, Recorded: strings.TrimSpace(a[i]), Replayed: "(end of trace)"}
		case a[i] != b[i]:
			p, va, vb := firstDifference([]byte(a[i]), []byte(b[i]), true)
			if p == "" {
				va, vb = strings.TrimSpace(a[i]), strings.TrimSpace(b[i])
			}
			return &TraceDiff{Line: i + 1, Field: p, Recorded: va, Replayed: vb}
		}
	}
	return nil
}

// recordedError rebuilds an effector error from its text, keeping context errors
// recognisable (also when an effector wrapped them) so that a replayed cancellation
// ends the run the same way.
func recordedError(msg string) error {
	for _, c := range []error{context.Canceled, context.DeadlineExceeded} {
		if msg == c.Error() {
			return c
		}
		if prefix, ok := strings.CutSuffix(msg, ": "+c.Error()); ok {
			return fmt.Errorf("%s: %w", prefix, c)
		}
	}
	return errors.New(msg)
}

// Run re-runs a recording with a rule set, serving every clock reading and
// effector result from it and calling no effector, and writes the new trace to sink.
// With the recorded rule set the new trace is byte-identical to the recording; with
// another one the run may diverge, which is reported as a *DivergenceError.
func Run(ctx context.Context, rec *Recording, rs *ruleset.RuleSet, sink trace.Sink) (trace.Halt, error) {
	rp, h := &Exchanger{rec: rec}, rec.Header
	opts := []engine.Option{
		engine.WithExchanger(rp),
		engine.WithMeta(h.Meta),
		engine.WithMaxIterations(h.Limits.MaxIterations),
		engine.WithMaxFirings(h.Limits.MaxFirings),
		engine.WithTrace(sink),
	}
	if rs.Hash() == h.Rules.Hash {
		// The same rules, perhaps found under another name: the header names them as
		// the recording did.
		opts = append(opts, engine.WithRecordedRules(h.Rules.Path, h.Rules.Source != ""))
	}
	eng := engine.NewEngine(rs, nil, opts...)
	if err := rp.seed(eng.Session()); err != nil {
		return trace.Halt{}, &RecordingError{err}
	}
	return eng.Run(ctx)
}

// Failed reports whether an error of Run says the replay itself failed: it
// diverged from the recording, needed more of it than there is, or could not use it.
// Any other error is the recorded run's own end (an effector error, a cancellation)
// reproduced, and the replay may still be byte-identical.
func Failed(err error) bool {
	_, diverged := errors.AsType[*DivergenceError](err)
	_, unusable := errors.AsType[*RecordingError](err)
	return diverged || unusable || errors.Is(err, ErrRecordingEnded)
}

// PollRules re-applies a recorded reload at the point the recording made it: the new
// rule set comes from the source recorded in the event, and a recorded failure is
// written again without touching the running rules. It offers the engine nothing.
func (r *Exchanger) PollRules(t engine.Tape) (bool, error) {
	if err := r.writeMarks(t); err != nil {
		return false, err
	}
	e, ok := r.rec.reloads[t.Next()]
	if !ok {
		return false, nil
	}
	b := e.Body.(trace.Reload)
	if e.Kind == trace.KindRulesReloaded {
		if err := t.Reload(b.Path, []byte(b.Source)); err != nil {
			b = trace.Reload{Path: b.Path, Hash: b.Hash, Error: "replay could not apply the recorded rules: " + err.Error()}
			t.Write(trace.KindRulesReloadFailed, b)
			return false, nil
		}
	}
	t.Write(e.Kind, b)
	return false, nil
}

// Epilogue writes the events the recorded host appended after the halt.
func (r *Exchanger) Epilogue(t engine.Tape) error {
	for _, e := range r.rec.epilogue {
		b, err := e.BodyJSON()
		if err != nil {
			return &RecordingError{fmt.Errorf("%s:%d: %w", r.rec.Name, e.Line, err)}
		}
		t.Write(e.Kind, b)
	}
	return nil
}

// writeMarks writes again a resumed line the recording has where the run now is: a
// continued run writes it at the hook where it handed over to the live run (before an
// effector call or a rule poll, or after the result of a call that was in flight), so
// its replay does too. A run resumed more than once at the same hook (killed again
// before the call was written) has several in a row there: all are written.
func (r *Exchanger) writeMarks(t engine.Tape) error {
	for {
		e, ok := r.rec.marks[t.Next()]
		if !ok {
			return nil
		}
		b, err := e.BodyJSON()
		if err != nil {
			return &RecordingError{fmt.Errorf("%s:%d: %w", r.rec.Name, e.Line, err)}
		}
		t.Write(e.Kind, b)
	}
}

// differsFrom is the divergence of a call the run asks for (body) from the recorded
// call rc, or nil when their op and request are the same.
func (rc *recordedCall) differsFrom(body trace.EffectorCall) *DivergenceError {
	if rc.body.Op == body.Op && rc.body.RequestHash == body.RequestHash {
		return nil
	}
	d := &DivergenceError{Seq: rc.call.Seq, Call: body.Call, Op: body.Op}
	if rc.body.Op != body.Op {
		d.Field, d.Recorded, d.Got = "op", strconv.Quote(rc.body.Op), strconv.Quote(body.Op)
	} else {
		d.Field, d.Recorded, d.Got = firstDifference(rc.body.Request, body.Request, false)
	}
	return d
}
