package ggs

import (
	"fmt"
	"slices"

	"github.com/agentspine/spine/contract"
)

// retry is the PlanDirective that runs a round again after a fault of the machinery cut
// it short: the same MUST NOT set as the directive before it (so the plan that met the
// fault stays valid), nothing new blocked, no Megram — the round taught nothing about
// the task — and not counted as a replan.
func (s *Solver) retry(in message, sig Signals, prev string, st *taskState) *contract.PlanDirective {
	what := "a fault of the machinery"
	if f := in.fault; f != nil {
		what = fmt.Sprintf("a fault of the machinery (%s: %s)", f.Role, f.Kind)
	}
	return &contract.PlanDirective{
		TaskID:         in.taskID,
		Loss:           sig.Loss(),
		PrevDirective:  prev,
		Directive:      contract.DirectiveRetry,
		BlockedTools:   nonNilSorted(st.lastTools),
		BlockedTargets: st.blocked.sorted(),
		FailureClass:   contract.FailureMixed,
		BudgetPressure: sig.Omega,
		GradL:          sig.Grad,
		Rationale: fmt.Sprintf("Round %d was cut short by %s, not by the plan: running it again unchanged "+
			"(%d faulted round(s) in a row, max_fault_retries = %d). Nothing new is blocked.",
			sig.Round, what, sig.FaultRounds, s.params.MaxFaultRetries),
	}
}

func nonNilSorted(xs []string) []string {
	out := slices.Clone(xs)
	if out == nil {
		return []string{}
	}
	slices.Sort(out)
	return out
}
