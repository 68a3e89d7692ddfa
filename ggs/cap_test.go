package ggs_test

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"strings"
	"testing"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// GGS and the Auditor count the same replan budget. A task fails the same way every
// round, fast enough that only the replan share of Ω grows. As shipped (seed 000, no
// replan cap) GGS issues PlanDirectives until w₁·replans/max_replans reaches θ, one more
// than max_replans, and abandons for the budget; with the opt-in cap at max_replans it
// abandons after max_replans, below θ. In both, the Auditor with the budget read from the
// same rules reports no budget_overrun, and with the other setting it does.
func TestReplansCapAgreesWithAuditor(t *testing.T) {
	shipped, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ggs.ParamsFrom(shipped)
	if err != nil {
		t.Fatal(err)
	}
	src, err := fs.ReadFile(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	cappedSrc := strings.Replace(string(src), "replan_cap: 0 ", fmt.Sprintf("replan_cap: %d ", p.MaxReplans), 1)
	capped, err := engine.LoadRules("capped-ggs.yaml", []byte(cappedSrc))
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]*trace.File{}
	for _, tc := range []struct {
		name       string
		rs         *ruleset.RuleSet
		directives int
		rule       string
		belowTheta bool
	}{
		{"seed 000", shipped, p.MaxReplans + 1, "abandon_budget_spent", false},
		{"replan cap", capped, p.MaxReplans, "abandon_replans_spent", true},
	} {
		f, tf, raw, n := runRefused(t, tc.rs)
		if f == nil || f.Directive != contract.DirectiveAbandon || f.Replans != tc.directives || n != tc.directives || (f.Loss.Omega < p.Theta) != tc.belowTheta {
			t.Fatalf("%s: %d PlanDirectives, final %+v; want %d, then abandon (below θ: %v)", tc.name, n, f, tc.directives, tc.belowTheta)
		}
		if !strings.Contains(string(raw), `"rule":"`+tc.rule+`"`) {
			t.Errorf("%s: the trace shows no firing of %s", tc.name, tc.rule)
		}
		runs[tc.name] = tf
		cfg, err := audit.DefaultConfig().WithRuleBudget(tc.rs)
		if err != nil {
			t.Fatal(err)
		}
		if got := overruns(t, cfg, tf); len(got) != 0 {
			t.Errorf("%s: the Auditor (replan_cap %d) disagrees with GGS: %s", tc.name, cfg.ReplanCap, got)
		}
	}
	// The other setting's Auditor does find the run over its budget: the check is live.
	strict := audit.DefaultConfig()
	strict.ReplanCap = p.MaxReplans
	if got := overruns(t, strict, runs["seed 000"]); len(got) != 1 {
		t.Errorf("a capped Auditor on the uncapped run: %q, want one budget_overrun", got)
	}
}

// runRefused plays a task whose every round is refused the same way, fast.
func runRefused(t *testing.T, rs *ruleset.RuleSet) (*contract.FinalResult, *trace.File, []byte, int) {
	t.Helper()
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
	tf, err := trace.Read("run", bytes.NewReader(sink.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	return loop.Final, tf, sink.Bytes(), directives
}

func overruns(t *testing.T, cfg audit.Config, tf *trace.File) []string {
	t.Helper()
	res, err := audit.AuditTrace(cfg, "run", tf)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, fd := range res.Findings {
		if fd.Kind == audit.KindBudgetOverrun {
			out = append(out, fd.Message)
		}
	}
	return out
}
