package ggs_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// GGS and the Auditor count the same replan budget: a task that fails the same way every
// round, fast enough that Ω alone never reaches θ, receives max_replans PlanDirectives and
// is then abandoned by the max_replans rule, and the Auditor, with its defaults or with
// the budget read from the rules, reports no budget_overrun on the trace.
func TestReplansCapAgreesWithAuditor(t *testing.T) {
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ggs.ParamsFrom(rs)
	if err != nil {
		t.Fatal(err)
	}
	directives := 0
	plant := plantFunc(func(_ context.Context, post *bus.Post, in ggs.RoundInput) error {
		if in.Round > 1 {
			if _, _, err := bus.Receive[contract.PlanDirective](post, "R2", contract.TypePlanDirective); err != nil {
				return err
			}
			directives++
		}
		_, err := post.Send("R4b", "R7", contract.TypeReplanRequest, in.TaskID, &contract.ReplanRequest{
			TaskID: in.TaskID, GapSummary: "still refused", ElapsedMS: int64(in.Round), FailedSubTasks: []string{"s"},
			Outcomes: []contract.SubTaskOutcome{{SubTaskID: fmt.Sprintf("s%d", in.Round), ParentTaskID: in.TaskID, Status: contract.OutcomeFailed,
				ToolCalls:        []string{fmt.Sprintf("shell:ss -tlnp /n%d → permission denied", in.Round)},
				CriteriaVerdicts: []contract.CriterionVerdict{failed("port named", contract.FailureEnvironmental)}}}})
		return err
	})
	loop, err := ggs.NewLoop(rs, plant, portTask)
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	eng := engine.NewEngine(rs, loop, engine.WithTrace(sink))
	if err := loop.Seed(eng.Session()); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	f := loop.Final
	if f == nil || f.Directive != contract.DirectiveAbandon || f.Replans != p.MaxReplans || directives != p.MaxReplans || f.Loss.Omega >= p.Theta {
		t.Fatalf("%d PlanDirectives, final %+v; want %d, then abandon below θ", directives, f, p.MaxReplans)
	}
	tf, err := trace.Read("run", bytes.NewReader(sink.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	fromRules, err := audit.DefaultConfig().WithRuleBudget(rs)
	if err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []audit.Config{audit.DefaultConfig(), fromRules} {
		res, err := audit.AuditTrace(cfg, "run", tf)
		if err != nil {
			t.Fatal(err)
		}
		for _, fd := range res.Findings {
			if fd.Kind == audit.KindBudgetOverrun {
				t.Errorf("the Auditor (max_replans %d) disagrees with GGS: %s", cfg.MaxReplans, fd.Message)
			}
		}
	}
}
