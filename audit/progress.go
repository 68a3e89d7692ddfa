package audit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agentspine/spine/contract"
)

// onDirective follows a task's PlanDirectives: thrashing, replanning without improvement
// and the replan budget. A directive also starts a new round for R4b's fan-in gate.
func (a *Auditor) onDirective(t *task, seq int64, p directiveMsg) {
	cur := directiveRec{seq: seq, directive: p.Directive, d: p.Loss.D, l: p.Loss.L}
	prev := t.prev
	t.prev = &cur
	t.directives = append(t.directives, seq)
	t.newRound()

	// ggs_thrashing: break_symmetry after break_symmetry, D not decreasing.
	if cur.directive == contract.DirectiveBreakSymmetry && prev != nil &&
		prev.directive == contract.DirectiveBreakSymmetry && cur.d >= prev.d {
		if len(t.thrash) == 0 {
			t.thrash = []directiveRec{*prev}
		}
		t.thrash = append(t.thrash, cur)
	} else {
		t.thrash, t.thrashDone = nil, false
	}
	if len(t.thrash) >= a.cfg.ThrashingRun && !t.thrashDone {
		t.thrashDone = true
		a.raise(KindGGSThrashing, t.id, fmt.Sprintf("%d consecutive break_symmetry directives without D decreasing (D %s)",
			len(t.thrash), trend(t.thrash, func(r directiveRec) float64 { return r.d })), seqsOf(t.thrash)...)
	}

	// replanning_without_improvement: L not decreasing from one directive to the next.
	if prev != nil && cur.l >= prev.l {
		if len(t.stall) == 0 {
			t.stall = []directiveRec{*prev}
		}
		t.stall = append(t.stall, cur)
	} else {
		t.stall, t.stallDone = nil, false
	}
	if len(t.stall) >= a.cfg.StallRun && !t.stallDone {
		t.stallDone = true
		a.raise(KindReplanningWithoutImprovement, t.id, fmt.Sprintf("%d consecutive PlanDirectives without L decreasing (L %s)",
			len(t.stall), trend(t.stall, func(r directiveRec) float64 { return r.l })), seqsOf(t.stall)...)
	}

	// budget_overrun: a directive issued with the budget spent (Ω ≥ θ), or, with the
	// opt-in replan cap on, more directives than the cap.
	if p.Loss.Omega >= a.cfg.Theta && a.once("omega\x00"+t.id) {
		a.raise(KindBudgetOverrun, t.id, fmt.Sprintf("a PlanDirective issued at Ω = %s ≥ θ = %s",
			strconv.FormatFloat(p.Loss.Omega, 'g', -1, 64), strconv.FormatFloat(a.cfg.Theta, 'g', -1, 64)), seq)
	}
	if a.cfg.ReplanCap > 0 && len(t.directives) > a.cfg.ReplanCap && a.once("replans\x00"+t.id) {
		a.raise(KindBudgetOverrun, t.id, fmt.Sprintf("%d PlanDirectives issued for the task; replan_cap is %d",
			len(t.directives), a.cfg.ReplanCap), t.directives...)
	}
}

// onFinal checks, with the replan cap on, the replan count a FinalResult declares (for
// streams where the directives themselves were not seen) and closes the task's fan-in.
func (a *Auditor) onFinal(t *task, seq int64, p finalMsg) {
	if a.cfg.ReplanCap > 0 && p.Replans > a.cfg.ReplanCap && a.once("replans\x00"+t.id) {
		a.raise(KindBudgetOverrun, t.id, fmt.Sprintf("the FinalResult declares %d replans; replan_cap is %d", p.Replans, a.cfg.ReplanCap), seq)
	}
	a.closeManifests(t, seq, "before the FinalResult")
}

// checkElapsed compares R4b's elapsed_ms with the time budget, once per task.
func (a *Auditor) checkElapsed(t *task, seq int64, typ string, elapsed int64) {
	if elapsed > a.cfg.TimeBudgetMS && a.once("time\x00"+t.id) {
		a.raise(KindBudgetOverrun, t.id, fmt.Sprintf("R4b's %s reports %d ms elapsed; the time budget is %d ms", typ, elapsed, a.cfg.TimeBudgetMS), seq)
	}
}

func seqsOf(rs []directiveRec) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.seq
	}
	return out
}

// trend renders a run of values as "0.5 → 0.5 → 0.6".
func trend(rs []directiveRec, v func(directiveRec) float64) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = strconv.FormatFloat(v(r), 'g', -1, 64)
	}
	return strings.Join(parts, " → ")
}
