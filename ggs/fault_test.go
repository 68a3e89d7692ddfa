package ggs

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

// faulted is a round that only a fault of the machinery cut short: R2 could not plan.
func faulted(task, kind string) *contract.ReplanRequest {
	return &contract.ReplanRequest{TaskID: task, GapSummary: "R2 could not plan", FailedSubTasks: []string{},
		Outcomes: []contract.SubTaskOutcome{}, Recommendation: "retry",
		Fault: &contract.Fault{Role: "R2", Kind: kind, Detail: "gave up after 4 attempts"}}
}

// faultedSubtask is a round where R3's endpoint failed on s2 beside a real verdict on s1.
func faultedSubtask(task string, realFailure bool) *contract.ReplanRequest {
	v := pass("a")
	st := "matched"
	if realFailure {
		v, st = fail("a", contract.ModeVerifiable, "environmental"), "failed"
	}
	reason := "R3 could not do its job"
	return replan(task, 0, outcome("s1", st, []string{"read_file:a.txt → no such file"}, v),
		contract.SubTaskOutcome{SubTaskID: "s2", ParentTaskID: task, Status: "failed", FailureReason: &reason,
			CriteriaVerdicts: []contract.CriterionVerdict{}, Fault: &contract.Fault{Role: "R3", Kind: contract.FaultModelUnavailable}})
}

// TestFaultsAreNotVerdicts: a fault enters neither D nor P; a fault-only round carries
// the last judged D and P with ∇L = 0 and is retried once, then abandoned with the fault
// as the reason; a retry is not a replan and blocks nothing new.
func TestFaultsAreNotVerdicts(t *testing.T) {
	s := newSolver(t)
	outs := runSteps(t, s, []step{
		{req: envRound("t1", 2, "read_file:a.txt → no such file"), prev: contract.DirectiveInit, directive: contract.DirectiveChangePath},
		{req: faulted("t1", contract.FaultModelUnavailable), prev: contract.DirectiveChangePath, directive: contract.DirectiveRetry},
		{req: faulted("t1", contract.FaultModelUnavailable), prev: contract.DirectiveRetry, directive: contract.DirectiveAbandon},
	})
	first, retry, end := outs[0], outs[1], outs[2]
	if retry.Signals.D != first.Signals.D || retry.Signals.P != first.Signals.P || retry.Signals.Grad != 0 ||
		retry.Signals.Fault != FaultRetry || retry.Signals.Replans != 1 {
		t.Errorf("fault-only signals = %+v, after %+v", retry.Signals, first.Signals)
	}
	d := retry.Directive
	if strings.Join(d.BlockedTargets, ",") != strings.Join(first.Directive.BlockedTargets, ",") || d.FailedCriterion != "" ||
		!strings.Contains(d.Rationale, "a fault of the machinery (R2: model_unavailable)") {
		t.Errorf("retry directive = %+v", d)
	}
	if end.Signals.Fault != FaultEnds || end.Final.Reason != contract.FaultModelUnavailable || end.Final.Replans != 1 ||
		!strings.Contains(end.Final.Summary, "a fault of the machinery (R2: model_unavailable) cut 2 round(s) in a row short (max_fault_retries = 1)") {
		t.Errorf("final = %+v, signals %+v", end.Final, end.Signals)
	}
}

// TestFaultBesideRealFailures: a faulted subtask next to a real environmental failure is
// decided on the merits, from the real verdict alone; next to a match, the round is
// fault-only and retried.
func TestFaultBesideRealFailures(t *testing.T) {
	s := newSolver(t)
	out, err := s.HandleReplan(context.Background(), faultedSubtask("t1", true))
	if err != nil {
		t.Fatal(err)
	}
	if out.Directive == nil || out.Directive.Directive != contract.DirectiveChangePath || out.Signals.D != 1 ||
		out.Signals.Fault != FaultNone || strings.Join(out.Directive.BlockedTargets, ",") != "read_file:a.txt" {
		t.Errorf("beside a real failure: %+v, signals %+v", out.Directive, out.Signals)
	}
	out, err = s.HandleReplan(context.Background(), faultedSubtask("t2", false))
	if err != nil {
		t.Fatal(err)
	}
	if out.Directive == nil || out.Directive.Directive != contract.DirectiveRetry || out.Signals.D != 1 || out.Signals.Fault != FaultRetry {
		t.Errorf("beside a match: %+v, signals %+v", out.Directive, out.Signals)
	}
}

// TestCorneredPlannerAbandonsAtOnce: a fault retrying cannot cure ends the task at its
// first occurrence.
func TestCorneredPlannerAbandonsAtOnce(t *testing.T) {
	s := newSolver(t)
	outs := runSteps(t, s, []step{{req: faulted("t1", contract.FaultPlannerCornered), prev: contract.DirectiveInit, directive: contract.DirectiveAbandon}})
	if fr := outs[0].Final; fr.Reason != contract.FaultPlannerCornered || !strings.Contains(fr.Summary, "every plan the planner could make broke the MUST NOT set") {
		t.Errorf("final = %+v", fr)
	}
}
