package ggs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentspine/spine/contract"
)

// roundCalls is what the failing subtasks of a round tried, from R3's tool_calls.
type roundCalls struct {
	tools        []string // tools of the failing subtasks
	logicalTools []string // tools of the failing subtasks with a logical failure
	targets      []string // "<tool>:<target>" of the failing subtasks' calls with a target
	merged       bool     // only the merged result failed: tools are those of every subtask
}

// failingCalls collects the tools and targets of the outcomes that failed (status failed
// or any failed verdict). Entries that do not parse are skipped.
//
// When no subtask failed but R4b's verdicts on the merged result did, every subtask fed
// the failing result: their tools are the round's tools (logical ones when the merged
// result failed logically), so that break_symmetry and change_approach still block the
// approach. Their targets worked and are not blocked.
func failingCalls(outcomes []contract.SubTaskOutcome, task []contract.CriterionVerdict) roundCalls {
	n := 0
	for i := range outcomes {
		n += len(outcomes[i].ToolCalls)
	}
	// One backing array for the three lists: each holds at most one entry per call.
	backing := make([]string, 3*n)
	rc := roundCalls{tools: backing[:0:n], logicalTools: backing[n : n : 2*n], targets: backing[2*n : 2*n : 3*n]}
	for i := range outcomes {
		o := &outcomes[i]
		failed, logical := o.Status == contract.OutcomeFailed, false
		for _, v := range o.CriteriaVerdicts {
			if v.Failed() {
				failed = true
				logical = logical || v.Class() == contract.FailureLogical
			}
		}
		if failed {
			rc.add(o.ToolCalls, logical, true)
		}
	}
	if len(rc.tools) == 0 && len(rc.targets) == 0 {
		mergedFailed, mergedLogical := false, false
		for _, v := range task {
			if v.Failed() {
				mergedFailed = true
				mergedLogical = mergedLogical || v.Class() == contract.FailureLogical
			}
		}
		if mergedFailed {
			rc.merged = true
			for i := range outcomes {
				rc.add(outcomes[i].ToolCalls, mergedLogical, false)
			}
		}
	}
	rc.tools = sortedUnique(rc.tools)
	rc.logicalTools = sortedUnique(rc.logicalTools)
	rc.targets = sortedUnique(rc.targets)
	return rc
}

func (rc *roundCalls) add(calls []string, logical, targets bool) {
	for _, entry := range calls {
		c, ok := contract.ParseToolCall(entry)
		if !ok {
			continue
		}
		rc.tools = append(rc.tools, c.Tool)
		if logical {
			rc.logicalTools = append(rc.logicalTools, c.Tool)
		}
		if targets && c.Target != "" {
			rc.targets = append(rc.targets, keyOf(entry, c))
		}
	}
}

// keyOf is c.Key(), taken from the entry itself when it starts with it (no spaces around
// the colon), which saves building the string.
func keyOf(entry string, c contract.ToolCall) string {
	n := len(c.Tool) + 1 + len(c.Target)
	if len(entry) >= n && entry[len(c.Tool)] == ':' && entry[:len(c.Tool)] == c.Tool && entry[len(c.Tool)+1:n] == c.Target {
		return entry[:n]
	}
	return c.Key()
}

// blocked is the MUST NOT part of a directive.
type blocked struct {
	tools []string
	// targets is what the directive blocks: every target an earlier directive of the
	// task blocked, and added.
	targets []string
	// added are the targets the directive's own macro-state and ∇L sign block this round.
	added []string
	// narrowed is set when a change_approach or refine directive was narrowed by an
	// improving loss, widened when it was widened by a worsening one.
	narrowed, widened bool
}

// shapeBlocked applies the directive semantics and the ∇L sign modulation:
//
//	break_symmetry   every tool of the failing subtasks; adds no target
//	change_approach  worsening: the failing subtasks' tools and every tool blocked earlier
//	                 improving: only the tools of subtasks that failed logically (all the
//	                 failing subtasks' tools when none did); adds no target
//	change_path      no tools; adds every target tried so far in the task
//	refine           no tools; worsening: adds every target tried so far;
//	                 improving: adds the targets of the most recent round that had any
//
// Whatever the directive, a target once blocked stays blocked for the rest of the task
// (seed 000's key invariant): the modulation only limits what a round adds, so the
// blocked_targets of a task's directives never shrink. Tools do not accumulate that way:
// an improving change_approach blocks fewer tools on purpose.
//
// In change_approach and refine |∇L| ≥ ε, so the sign of ∇L alone tells the two apart.
func shapeBlocked(directive string, grad float64, rc roundCalls, st *taskState) blocked {
	b := blocked{tools: []string{}, added: []string{}}
	switch directive {
	case contract.DirectiveBreakSymmetry:
		b.tools = rc.tools
	case contract.DirectiveChangeApproach:
		switch {
		case grad > 0:
			b.tools = sortedUnique(append(st.tools.sorted(), rc.tools...))
			b.widened = true
		case len(rc.logicalTools) > 0:
			b.tools = rc.logicalTools
			b.narrowed = true
		default:
			b.tools = rc.tools
		}
	case contract.DirectiveChangePath:
		b.added = sortedUnique(append(st.targets.sorted(), rc.targets...))
	case contract.DirectiveRefine:
		if grad < 0 {
			b.added = latestTargets(rc, st)
			b.narrowed = true
		} else {
			b.added = sortedUnique(append(st.targets.sorted(), rc.targets...))
			b.widened = true
		}
	}
	b.targets = sortedUnique(append(st.blocked.sorted(), b.added...))
	return b
}

func latestTargets(rc roundCalls, st *taskState) []string {
	if len(rc.targets) > 0 {
		return rc.targets
	}
	return append([]string{}, st.latest...)
}

// num prints a signal the way encoding/json does for these magnitudes.
func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// prose builds a rationale without fmt: a directive is shaped on every round.
type prose []byte

// String copies the text out: the project keeps no unsafe, and one copy per rationale is
// small beside the round that shaped it.
func (w prose) String() string { return string(w) }

func (w *prose) say(parts ...string) {
	for _, p := range parts {
		*w = append(*w, p...)
	}
}

func (w *prose) num(x float64) { *w = strconv.AppendFloat(*w, x, 'g', -1, 64) }
func (w *prose) int(n int)     { *w = strconv.AppendInt(*w, int64(n), 10) }

// list names up to four items, then how many more.
func (w *prose) list(items []string) {
	if len(items) == 0 {
		w.say("none")
		return
	}
	for i, it := range items[:min(len(items), 4)] {
		if i > 0 {
			w.say(", ")
		}
		w.say(it)
	}
	if len(items) > 4 {
		w.say(" and ")
		w.int(len(items) - 4)
		w.say(" more")
	}
}

// rationale explains an action directive in plain words: where the loss is going, what
// the failures point at, and what the directive blocks.
func rationale(directive string, s Signals, p Params, b blocked, merged bool) string {
	w := make(prose, 0, 384)
	switch directive {
	case contract.DirectiveBreakSymmetry, contract.DirectiveChangePath:
		w.say("The loss is not moving (|∇L| = ")
		w.num(abs(s.Grad))
		w.say(" < ε = ")
	default:
		if s.Grad > 0 {
			w.say("The loss is worsening (∇L = ")
		} else {
			w.say("The loss is improving (∇L = ")
		}
		w.num(s.Grad)
		w.say(", |∇L| ≥ ε = ")
	}
	w.num(p.Epsilon)
	w.say(") and the result is still far (D = ")
	w.num(s.D)
	w.say(" > δ = ")
	w.num(p.Delta)
	switch directive {
	case contract.DirectiveBreakSymmetry:
		w.say("), and the failures point at the approach (P = ")
		w.num(s.P)
		w.say(" > ρ = ")
	case contract.DirectiveChangeApproach:
		w.say("), but the failures point at the approach (P = ")
		w.num(s.P)
		w.say(" > ρ = ")
	default:
		w.say("), and the failures point at the environment, not the approach (P = ")
		w.num(s.P)
		w.say(" ≤ ρ = ")
	}
	w.num(p.Rho)
	w.say(")")
	whose := "the failing subtasks"
	if merged {
		whose = "the subtasks behind the failing merged result"
	}
	switch directive {
	case contract.DirectiveBreakSymmetry:
		w.say(": the approach is wrong and stuck. Do not use the tools of ", whose, " (")
		w.blockedTools(b, "plan with a different class of tool.")
	case contract.DirectiveChangeApproach:
		w.say(": the method is wrong. ")
		switch {
		case b.widened:
			w.say("Blocked, since the loss is worsening: the tools of ", whose, " and every tool blocked before (")
		case b.narrowed && !merged:
			w.say("Blocked, since the loss is improving: only the tools of the subtasks that failed logically (")
		default:
			w.say("Blocked: the tools of ", whose, " (")
		}
		w.blockedTools(b, "switch to a different method.")
	case contract.DirectiveChangePath:
		w.say(": the approach is sound but keeps hitting the same wall. Keep the tools and use different targets (blocked so far: ")
		w.int(len(b.targets))
		w.say(").")
	case contract.DirectiveRefine:
		w.say(": the approach is sound. Tighten the parameters and narrow the scope; ")
		if b.narrowed {
			w.say("only the latest failed targets are added (")
			w.int(len(b.added))
			w.say("), and every target blocked before stays blocked (blocked so far: ")
		} else {
			w.say("every target that failed so far is blocked (")
		}
		w.int(len(b.targets))
		w.say(").")
	}
	return w.String()
}

// blockedTools lists the tools a directive blocks, closes their parenthesis with what to
// do instead, and says which earlier targets stay blocked.
func (w *prose) blockedTools(b blocked, instead string) {
	w.list(b.tools)
	w.say("); ", instead)
	w.kept(b)
}

// kept says that a directive which adds no target still blocks those of earlier ones.
func (w *prose) kept(b blocked) {
	if len(b.targets) == 0 {
		return
	}
	w.say(" The targets blocked earlier in the task stay blocked (")
	w.int(len(b.targets))
	w.say(").")
}

// summary explains a terminal directive in plain words.
func summary(directive string, s Signals, p Params, gap string) string {
	var b strings.Builder
	switch directive {
	case contract.DirectiveAccept:
		b.WriteString("Every subtask matched and the merged result met the task criteria.")
	case contract.DirectiveSuccess:
		fmt.Fprintf(&b, "Close enough: D = %s ≤ δ = %s after %s.", num(s.D), num(p.Delta), replans(s.Replans))
	case contract.DirectiveAbandon:
		switch {
		case s.Interrupted != "":
			b.WriteString(interruptedSummary(s.Interrupted, s.InterruptDetail))
		case s.Fault == FaultEnds && s.FaultKind == contract.FaultKeyRefused:
			// The round's report has said what the endpoint answered: it is not repeated.
			fmt.Fprintf(&b, "Abandoned at once: %s. No retry can cure it (%s: %s); the task itself was not judged.",
				contract.KeyRefusedAdvice, s.FaultRole, s.FaultKind)
			gap = ""
		case s.Fault == FaultEnds && s.FaultFatal:
			b.WriteString("Abandoned: every plan the planner could make broke the MUST NOT set (a fault of the machinery, not a verdict on the task).")
		case s.Fault == FaultEnds:
			// The fault's own words are in each faulted round's report: named, not repeated.
			fmt.Fprintf(&b, "Abandoned: a fault of the machinery (%s: %s) cut %d round(s) in a row short (max_fault_retries = %d); the task itself was not judged failed.",
				s.FaultRole, s.FaultKind, s.FaultRounds, p.MaxFaultRetries)
			if s.FaultOnly {
				gap = ""
			}
		case s.Worsening >= p.Law2Kill:
			fmt.Fprintf(&b, "Abandoned: the loss worsened on %d consecutive rounds (∇L = %s > ε = %s), so more budget would not help.",
				s.Worsening, num(s.Grad), num(p.Epsilon))
		case s.Omega >= p.Theta:
			fmt.Fprintf(&b, "Abandoned: the budget is spent (Ω = %s ≥ θ = %s) after %s.", num(s.Omega), num(p.Theta), replans(s.Replans))
		case p.CapReached(s.Replans) && s.D > p.Delta:
			fmt.Fprintf(&b, "Abandoned: the replan cap is reached (%s issued, replan_cap = %d) and the result is still beyond δ = %s.",
				replans(s.Replans), p.ReplanCap, num(p.Delta))
		default:
			fmt.Fprintf(&b, "Abandoned after %s.", replans(s.Replans))
		}
		fmt.Fprintf(&b, " Distance left: D = %s.", num(s.D))
	}
	if gap != "" {
		b.WriteString(" Gap: " + gap)
	}
	return b.String()
}

func replans(n int) string {
	switch n {
	case 0:
		return "no replan"
	case 1:
		return "1 replan"
	}
	return fmt.Sprintf("%d replans", n)
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
