package report

import (
	"cmp"
	"slices"
	"strconv"

	"github.com/agentspine/spine/spine/trace"
)

// Step is one rule cycle as the step-through shows it: the state the engine was in, the
// conflict set, the rule that fired and working memory after its actions, rebuilt from
// the trace's fact events (the facts the rule changed marked).
type Step struct {
	N         int // 1-based position in the step-through
	Seq       int64
	Anchor    string // of the conflict set's row in the rule timeline
	Cycle     int
	Iteration int
	State     string // the state fact's name at the cycle, else the stage
	Stage     string
	Evaluated []RuleEval
	Conflict  []string
	Fired     string
	DecidedBy string
	Memory    []WMFact
}

// WMFact is one fact in working memory after a cycle.
type WMFact struct {
	Kind, ID, Rev, Payload string
	Changed                bool // asserted or updated by the cycle's rule
	Retracted              bool // retracted by it: shown struck out, once
}

// maxFactText bounds a fact's payload on the page; the exchange list and the trace
// have it whole.
const maxFactText = 400

// cycles rebuilds working memory from the fact events and closes each cycle's step at
// the first event after its rule's actions.
type cycles struct {
	wm        map[string]trace.Fact
	state     string
	iteration int
	open      *Step
	changed   map[string]bool
	retracted map[string]trace.Fact
}

func newCycles() cycles { return cycles{wm: map[string]trace.Fact{}} }

func factKey(f trace.Fact) string { return f.Kind + "\x00" + f.ID }

func (c *cycles) event(r *Report, e *trace.Event) {
	switch body := e.Body.(type) {
	case trace.FactChange:
		k := factKey(body.Fact)
		if e.Kind == trace.KindFactRetracted {
			if c.open != nil {
				c.retracted[k] = c.wm[k]
			}
			delete(c.wm, k)
		} else {
			c.wm[k] = body.Fact
			if c.open != nil {
				c.changed[k] = true
			}
		}
		if body.Fact.Kind == "state" && e.Kind != trace.KindFactRetracted {
			var s struct{ Name string }
			if decodeRaw(body.Fact.Payload, &s) == nil {
				c.state = s.Name
			}
		}
		return
	case trace.RuleFired, trace.RuleError:
		return // the cycle's own, before its facts
	case trace.Transition:
		c.close(r)
		c.iteration = body.Iteration
		return
	case trace.ConflictSet:
		c.close(r)
		st := &Step{Seq: e.Seq, Anchor: anchor(e.Seq), Cycle: body.Cycle, Iteration: c.iteration, State: c.state,
			Stage: body.Stage, Conflict: body.ConflictSet, Fired: body.Fired, DecidedBy: body.DecidedBy}
		if st.State == "" {
			st.State = body.Stage
		}
		for _, ev := range body.Evaluated {
			st.Evaluated = append(st.Evaluated, RuleEval{Rule: ev.Rule, Result: ev.Result, Error: ev.Error, Refracted: ev.Refracted})
		}
		c.open, c.changed, c.retracted = st, map[string]bool{}, map[string]trace.Fact{}
		return
	}
	c.close(r)
}

// close ends the open cycle's step with working memory as it is now.
func (c *cycles) close(r *Report) {
	st := c.open
	if st == nil {
		return
	}
	c.open = nil
	for k, f := range c.wm {
		st.Memory = append(st.Memory, wmFact(f, c.changed[k], false))
	}
	for k, f := range c.retracted {
		if _, back := c.wm[k]; !back {
			st.Memory = append(st.Memory, wmFact(f, false, true))
		}
	}
	slices.SortFunc(st.Memory, func(a, b WMFact) int {
		return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.ID, b.ID))
	})
	st.N = len(r.Cycles) + 1
	r.Cycles = append(r.Cycles, *st)
}

func wmFact(f trace.Fact, changed, retracted bool) WMFact {
	return WMFact{Kind: f.Kind, ID: f.ID, Rev: strconv.FormatUint(f.Rev, 10),
		Payload: cut(compactJSON(f.Payload), maxFactText), Changed: changed, Retracted: retracted}
}
