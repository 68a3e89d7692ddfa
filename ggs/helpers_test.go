package ggs

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// rulesPath names the GGS rule set under test: the shipped rules/ggs.yaml, as embedded.
const rulesPath = "rules/" + rules.GGS

func loadRules(t testing.TB) *ruleset.RuleSet {
	t.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatalf("load %s: %v", rulesPath, err)
	}
	return rs
}

// loadEdited loads a copy of the rule set with each old text replaced by its new one
// (pairs old, new, ...), as a user editing the file would.
func loadEdited(t testing.TB, oldNew ...string) *ruleset.RuleSet {
	t.Helper()
	b, err := fs.ReadFile(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(src, oldNew[i]) {
			t.Fatalf("%s does not contain %q", rulesPath, oldNew[i])
		}
		src = strings.Replace(src, oldNew[i], oldNew[i+1], 1)
	}
	rs, err := engine.LoadRules("edited-ggs.yaml", []byte(src))
	if err != nil {
		t.Fatalf("load edited rules: %v", err)
	}
	return rs
}

func loadParams(t testing.TB) Params {
	t.Helper()
	p, err := ParamsFrom(loadRules(t))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func newSolver(t testing.TB, opts ...Option) *Solver {
	t.Helper()
	s, err := New(loadRules(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func classPtr(c string) *string {
	if c == "" {
		return nil
	}
	return &c
}

// fail and pass build criteria verdicts; a mode of "" is left out as R4a may do.
func fail(criterion, mode, class string) contract.CriterionVerdict {
	return contract.CriterionVerdict{Criterion: criterion, Mode: mode, Verdict: contract.VerdictFail, FailureClass: classPtr(class), Evidence: "seen"}
}

func pass(criterion string) contract.CriterionVerdict {
	return contract.CriterionVerdict{Criterion: criterion, Mode: contract.ModeVerifiable, Verdict: contract.VerdictPass}
}

func outcome(id, status string, calls []string, vs ...contract.CriterionVerdict) contract.SubTaskOutcome {
	return contract.SubTaskOutcome{SubTaskID: id, ParentTaskID: "", Status: status, CriteriaVerdicts: vs, ToolCalls: calls}
}

func replan(task string, elapsed int64, outs ...contract.SubTaskOutcome) *contract.ReplanRequest {
	var failed []string
	for _, o := range outs {
		if o.Status == contract.OutcomeFailed {
			failed = append(failed, o.SubTaskID)
		}
	}
	return &contract.ReplanRequest{
		TaskID: task, Intent: "Collect the weekly logs", GapSummary: "criteria unmet",
		FailedSubTasks: failed, ElapsedMS: elapsed, Outcomes: outs, Recommendation: "replan",
	}
}

func mustReplan(t testing.TB, s *Solver, req *contract.ReplanRequest) Output {
	t.Helper()
	out, err := s.HandleReplan(context.Background(), req)
	if err != nil {
		t.Fatalf("HandleReplan(%s): %v", req.TaskID, err)
	}
	return out
}

func directiveOf(o Output) string {
	if o.Final != nil {
		return o.Final.Directive
	}
	return o.Directive.Directive
}
