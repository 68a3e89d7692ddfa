package ggs_test

import (
	"context"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// onceSource offers src at the n-th poll (the n-th select_objective), as a watched rule
// file edited between two rounds would.
type onceSource struct {
	n, polls int
	src      []byte
}

func (o *onceSource) Poll() (string, []byte, error) {
	o.polls++
	if o.polls == o.n {
		return "edited-ggs.yaml", o.src, nil
	}
	return "edited-ggs.yaml", nil, nil
}

// After a hot reload the decision compares against the new params, and the PlanDirective
// that carries it quotes them: here ρ drops from 0.5 to 0.45 and δ from 0.3 to 0.25
// before round 1 is decided, so P = 0.5 now reads as logical (break_symmetry, where the
// old ρ gave change_path), and the rationale must say so with the new values. The
// FinalResult's summary quotes the new δ too.
func TestReloadedParamsInRationale(t *testing.T) {
	base, err := fs.ReadFile(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(base)
	for _, r := range [][2]string{{"rho: 0.5 ", "rho: 0.45 "}, {"delta: 0.3 ", "delta: 0.25 "}} {
		if !strings.Contains(edited, r[0]) {
			t.Fatalf("rules/%s has no %q", rules.GGS, r[0])
		}
		edited = strings.Replace(edited, r[0], r[1], 1)
	}
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	// Round 1: one logical and one environmental failure of two criteria (D = 1, P = 0.5).
	// Round 2: one of five criteria fails (D = 0.2 ≤ δ = 0.25): success.
	rounds := []*contract.ReplanRequest{
		{TaskID: "t1", Intent: portTask.Intent, GapSummary: "port not found", ElapsedMS: 10, Outcomes: []contract.SubTaskOutcome{{
			SubTaskID: "s1", ParentTaskID: "t1", Status: contract.OutcomeFailed, ToolCalls: []string{"shell:ss -tlnp → permission denied"},
			CriteriaVerdicts: []contract.CriterionVerdict{failed("port named", contract.FailureLogical), failed("process named", contract.FailureEnvironmental)},
			GapTrajectory:    []contract.GapAttempt{}}}},
		{TaskID: "t1", Intent: portTask.Intent, GapSummary: "process unnamed", ElapsedMS: 20, Outcomes: []contract.SubTaskOutcome{{
			SubTaskID: "s2", ParentTaskID: "t1", Status: contract.OutcomeFailed, Output: "8080", ToolCalls: []string{"read_file:/etc/app.conf → port=8080"},
			CriteriaVerdicts: []contract.CriterionVerdict{passed("a"), passed("b"), passed("c"), passed("d"), failed("process named", contract.FailureEnvironmental)},
			GapTrajectory:    []contract.GapAttempt{}}}},
	}
	var directives []contract.PlanDirective
	plant := plantFunc(func(_ context.Context, p *bus.Post, in ggs.RoundInput) error {
		if in.Round > 1 {
			d, _, err := bus.Receive[contract.PlanDirective](p, "R2", contract.TypePlanDirective)
			if err != nil {
				return err
			}
			directives = append(directives, d)
		}
		_, err := p.Send("R4b", "R7", contract.TypeReplanRequest, in.TaskID, rounds[in.Round-1])
		return err
	})
	loop, err := ggs.NewLoop(rs, plant, portTask)
	if err != nil {
		t.Fatal(err)
	}
	src := &onceSource{n: 2, src: []byte(edited)} // poll 1 chooses plan; poll 2 decides round 1
	eng := engine.NewEngine(rs, loop, engine.WithTrace(&trace.MemorySink{}), engine.WithRuleSource(src),
		engine.WithClock(clock.NewStep(time.Unix(0, 0).UTC(), time.Millisecond)))
	if err := loop.Seed(eng.Session()); err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := eng.ReloadError(); err != nil {
		t.Fatalf("reload: %v", err)
	}
	if len(directives) != 1 || directives[0].Directive != contract.DirectiveBreakSymmetry {
		t.Fatalf("directives %+v, want one break_symmetry (P = 0.5 > the new ρ = 0.45)", directives)
	}
	why := directives[0].Rationale
	for _, want := range []string{"(P = 0.5 > ρ = 0.45)", "(D = 1 > δ = 0.25)"} {
		if !strings.Contains(why, want) {
			t.Errorf("rationale does not quote the params in force, %q:\n%s", want, why)
		}
	}
	if strings.Contains(why, "ρ = 0.5") || strings.Contains(why, "δ = 0.3") {
		t.Errorf("rationale quotes the params replaced by the reload:\n%s", why)
	}
	if f := loop.Final; f == nil || f.Directive != contract.DirectiveSuccess || !strings.Contains(f.Summary, "D = 0.2 ≤ δ = 0.25") {
		t.Errorf("final %+v, want success quoting δ = 0.25", f)
	}
}

// A reloaded rule set that declares the same fact kinds but drops a param GGS needs
// stops the run with an error naming the file and the param.
func TestReloadWithoutParamStops(t *testing.T) {
	base, err := fs.ReadFile(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	line := "  alpha: 0.6 "
	i := strings.Index(string(base), line)
	if i < 0 {
		t.Fatalf("rules/%s has no %q", rules.GGS, line)
	}
	end := i + strings.IndexByte(string(base[i:]), '\n') + 1
	edited := string(base[:i]) + string(base[end:])
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	plant := plantFunc(func(_ context.Context, p *bus.Post, in ggs.RoundInput) error {
		_, err := p.Send("R4b", "R7", contract.TypeReplanRequest, in.TaskID, &contract.ReplanRequest{TaskID: "t1", ElapsedMS: 1,
			Outcomes: []contract.SubTaskOutcome{{SubTaskID: "s1", ParentTaskID: "t1", Status: contract.OutcomeFailed,
				CriteriaVerdicts: []contract.CriterionVerdict{failed("port named", contract.FailureEnvironmental)}}}})
		return err
	})
	loop, err := ggs.NewLoop(rs, plant, portTask)
	if err != nil {
		t.Fatal(err)
	}
	eng := engine.NewEngine(rs, loop, engine.WithTrace(&trace.MemorySink{}), engine.WithRuleSource(&onceSource{n: 2, src: []byte(edited)}),
		engine.WithClock(clock.NewStep(time.Unix(0, 0).UTC(), time.Millisecond)))
	if err := loop.Seed(eng.Session()); err != nil {
		t.Fatal(err)
	}
	_, err = eng.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "ggs: reloaded rules edited-ggs.yaml: no param alpha") {
		t.Fatalf("run error %v, want the missing param named", err)
	}
}

func failed(criterion, class string) contract.CriterionVerdict {
	return contract.CriterionVerdict{Criterion: criterion, Mode: contract.ModeVerifiable, Verdict: contract.VerdictFail, FailureClass: &class, Evidence: "seen"}
}

func passed(criterion string) contract.CriterionVerdict {
	return contract.CriterionVerdict{Criterion: criterion, Mode: contract.ModeVerifiable, Verdict: contract.VerdictPass}
}
