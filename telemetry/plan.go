package telemetry

import (
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	oteltrace "go.opentelemetry.io/otel/trace"
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
	halted  bool
}

// plan builds the span tree of one trace. The first event must be its header.
func plan(name string, evs []event, opts Options) (*span, error) {
	if len(evs) == 0 {
		return nil, fmt.Errorf("%s: no events (want a spine trace that starts with its header)", name)
	}
	h, ok := evs[0].body.(*header)
	if !ok {
		return nil, fmt.Errorf("%s:1: first event is %q, want the header", name, excerpt(evs[0].kind, 40))
	}
	if h.Run == "" {
		return nil, fmt.Errorf("%s:1: header names no run", name)
	}
	b := &builder{opts: opts, meta: h.Meta}
	b.run = newSpan("run", evs[0].seq, "spine run", evs[0].t)
	b.run.attrs = runAttrs(h)
	for _, ev := range evs[1:] {
		b.add(ev)
	}
	b.closeRound()
	if !b.halted {
		b.run.attrs = append(b.run.attrs, attribute.Bool("spine.incomplete", true))
		b.run.status, b.run.statusMsg = codes.Error, "the trace ends before the run's halt"
	}
	b.run.enclose()
	return b.run, nil
}

func (b *builder) add(ev event) {
	switch body := ev.body.(type) {
	case *transition:
		if b.round == nil || body.Iteration != b.iter {
			b.openRound(ev, body.Iteration)
		}
		b.round.event("spine.transition", ev.t,
			attribute.String("spine.from", body.From),
			attribute.String("spine.to", body.To),
			attribute.String("spine.event", body.Event))
	case *ruleFired:
		b.at(ev.t).event("spine.rule_fired", ev.t,
			attribute.String("spine.rule", body.Rule),
			attribute.Int("spine.salience", body.Salience),
			attribute.Int("spine.cycle", body.Cycle),
			attribute.String("spine.objective", body.Then.Objective))
	case *ruleError:
		s := b.at(ev.t)
		s.event("spine.rule_error", ev.t,
			attribute.String("spine.rule", body.Rule),
			attribute.Int("spine.cycle", body.Cycle),
			attribute.StringSlice("spine.errors", body.Errors))
	case *conflictSet:
		attrs := []attribute.KeyValue{
			attribute.String("spine.stage", body.Stage),
			attribute.Int("spine.cycle", body.Cycle),
			attribute.StringSlice("spine.conflict_set", body.ConflictSet),
		}
		if body.Fired != "" {
			attrs = append(attrs, attribute.String("spine.fired", body.Fired), attribute.String("spine.decided_by", body.DecidedBy))
		}
		b.at(ev.t).event("spine.conflict_set", ev.t, attrs...)
	case *factChange:
		b.fact(ev, body)
	case *effectorResult:
		attrs := []attribute.KeyValue{
			attribute.String("spine.op", body.Op),
			attribute.Int("spine.call", body.Call),
			attribute.Int64("spine.duration_ms", body.DurationMS),
		}
		if body.Error != "" {
			attrs = append(attrs, attribute.String("spine.error", excerpt(body.Error, maxText)))
		}
		b.endRole()
		b.at(ev.t).event("spine.effector", ev.t, attrs...)
	case *exchange:
		b.exchange(ev, body)
	case *message:
		r := b.roleFor(ev, body.From)
		r.event("spine.message", ev.t,
			attribute.String("spine.message.from", body.From),
			attribute.String("spine.message.to", body.To),
			attribute.String("spine.message.type", body.Type),
			attribute.String("spine.task_id", body.TaskID))
	case *halt:
		b.halted = true
		b.closeRound()
		b.run.touch(ev.t)
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
	case *audit:
		f := body.Finding
		b.run.event("spine.audit", ev.t,
			attribute.String("spine.audit.kind", f.Kind),
			attribute.String("spine.audit.severity", f.Severity),
			attribute.String("spine.audit.message", excerpt(f.Message, maxText)),
			attribute.Int64Slice("spine.audit.evidence", f.Evidence))
	case *reload:
		b.at(ev.t).event("spine.rules_reloaded", ev.t,
			attribute.String("spine.rules.name", body.Rules.Name),
			attribute.String("spine.rules.hash", body.Rules.Hash))
	default:
		b.at(ev.t).touch(ev.t)
	}
}

// at is the span engine events of time t belong on: the current round, or the run
// before the first round and after the halt.
func (b *builder) at(t time.Time) *span {
	if b.round != nil {
		return b.round
	}
	return b.run
}

func (b *builder) openRound(ev event, iter int) {
	b.closeRound()
	b.iter = iter
	b.round = newSpan("round", ev.seq, fmt.Sprintf("round %d", iter), ev.t)
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
func (b *builder) fact(ev event, fc *factChange) {
	switch fc.Fact.Kind {
	case "objective":
		name, _ := fc.Fact.Payload["name"].(string)
		rule, _ := fc.Fact.Payload["rule"].(string)
		s := b.at(ev.t)
		s.event("spine.macro_state", ev.t,
			attribute.String("spine.macro_state", name),
			attribute.String("spine.rule", rule))
		if b.round != nil {
			setAttr(b.round, attribute.String("spine.objective", name))
		}
	case "signals":
		if b.round != nil {
			b.signals = fc.Fact.Payload
		}
		b.at(ev.t).touch(ev.t)
	default:
		b.at(ev.t).touch(ev.t)
	}
}

// roleFor returns the span of role name, opening one when another role acted last.
func (b *builder) roleFor(ev event, name string) *span {
	parent := b.at(ev.t)
	if name == "" {
		return parent
	}
	if b.role != nil && b.roleName == name {
		return b.role
	}
	r := newSpan("role", ev.seq, "invoke_agent "+name, ev.t)
	r.attrs = []attribute.KeyValue{
		attribute.String(keyOperation, "invoke_agent"),
		attribute.String(keyAgentName, name),
		attribute.String("spine.role", name),
	}
	parent.children = append(parent.children, r)
	b.role, b.roleName = r, name
	return r
}

func (b *builder) exchange(ev event, x *exchange) {
	kind, what, _ := strings.Cut(x.Name, ":")
	role := b.roleName
	if kind == "llm" {
		role = what
	}
	parent := b.roleFor(ev, role)
	c := newSpan("call", ev.seq, x.Name, ev.t.Add(-time.Duration(x.DurationMS)*time.Millisecond))
	c.end = ev.t
	switch kind {
	case "llm":
		modelSpan(c, x, b.opts.provider(), b.meta)
	case "tool":
		toolSpan(c, what, x)
	default:
		c.attrs = []attribute.KeyValue{attribute.String("spine.exchange", x.Name)}
	}
	c.attrs = append(c.attrs, attribute.Int64("spine.seq", ev.seq), attribute.Int64("spine.duration_ms", x.DurationMS))
	if x.Error != "" {
		c.status, c.statusMsg = codes.Error, excerpt(x.Error, maxText)
	}
	parent.children = append(parent.children, c)
	parent.touch(ev.t)
}

// setAttr sets a on s, replacing an attribute of the same key.
func setAttr(s *span, a attribute.KeyValue) {
	for i := range s.attrs {
		if s.attrs[i].Key == a.Key {
			s.attrs[i] = a
			return
		}
	}
	s.attrs = append(s.attrs, a)
}
