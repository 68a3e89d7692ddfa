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
	thrashing := cur.directive == contract.DirectiveBreakSymmetry && prev != nil &&
		prev.directive == contract.DirectiveBreakSymmetry && cur.d >= prev.d
	if run := t.thrash.next(prev, cur, thrashing, a.cfg.ThrashingRun); run != nil {
		a.raise(KindGGSThrashing, t.id, fmt.Sprintf("%d consecutive break_symmetry directives without D decreasing (D %s)",
			len(run), trend(run, func(r directiveRec) float64 { return r.d })), seqsOf(run)...)
	}

	// replanning_without_improvement: L not decreasing from one directive to the next.
	if run := t.stall.next(prev, cur, prev != nil && cur.l >= prev.l, a.cfg.StallRun); run != nil {
		a.raise(KindReplanningWithoutImprovement, t.id, fmt.Sprintf("%d consecutive PlanDirectives without L decreasing (L %s)",
			len(run), trend(run, func(r directiveRec) float64 { return r.l })), seqsOf(run)...)
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

// streak is the current run of consecutive PlanDirectives that did not improve on the one
// before, and whether it is already reported.
type streak struct {
	run      []directiveRec
	reported bool
}

// next extends the run with cur when cur continues it (prev then being the directive
// before), else ends it. It returns the run when it has reached atLeast directives and is not
// yet reported, once per run.
func (s *streak) next(prev *directiveRec, cur directiveRec, continues bool, atLeast int) []directiveRec {
	if !continues {
		s.run, s.reported = nil, false
		return nil
	}
	if len(s.run) == 0 {
		s.run = []directiveRec{*prev}
	}
	s.run = append(s.run, cur)
	if len(s.run) < atLeast || s.reported {
		return nil
	}
	s.reported = true
	return s.run
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
