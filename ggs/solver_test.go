package ggs

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
)

// envRound fails n of two criteria environmentally on subtask s1, which called calls.
func envRound(task string, n int, calls ...string) *contract.ReplanRequest {
	vs := []contract.CriterionVerdict{pass("a"), pass("b")}
	for i := 0; i < n; i++ {
		vs[i] = fail(vs[i].Criterion, contract.ModeVerifiable, "environmental")
	}
	return replan(task, 0, outcome("s1", "failed", calls, vs...))
}

func logicalRound(task string, calls ...string) *contract.ReplanRequest {
	return replan(task, 0, outcome("s1", "failed", calls,
		fail("a", contract.ModeVerifiable, "logical"), fail("b", contract.ModeVerifiable, "logical")))
}

type step struct {
	req       *contract.ReplanRequest
	sum       *contract.OutcomeSummary
	prev      string
	directive string
	loss      contract.Loss
	grad      float64
}

func runSteps(t *testing.T, s *Solver, steps []step) []Output {
	t.Helper()
	var outs []Output
	for i, st := range steps {
		var out Output
		var err error
		if st.sum != nil {
			out, err = s.HandleOutcome(context.Background(), st.sum)
		} else {
			out, err = s.HandleReplan(context.Background(), st.req)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
		var prev, dir string
		var loss contract.Loss
		var grad float64
		if out.Final != nil {
			prev, dir, loss, grad = out.Final.PrevDirective, out.Final.Directive, out.Final.Loss, out.Final.GradL
		} else {
			prev, dir, loss, grad = out.Directive.PrevDirective, out.Directive.Directive, out.Directive.Loss, out.Directive.GradL
		}
		if prev != st.prev || dir != st.directive {
			t.Errorf("step %d: %s→%s, want %s→%s (rule %s, signals %+v)", i+1, prev, dir, st.prev, st.directive, out.Rule, out.Signals)
		}
		if st.loss != (contract.Loss{}) && loss != st.loss {
			t.Errorf("step %d: loss %+v, want %+v", i+1, loss, st.loss)
		}
		if grad != st.grad {
			t.Errorf("step %d: ∇L %v, want %v", i+1, grad, st.grad)
		}
		outs = append(outs, out)
	}
	return outs
}

func TestFirstRound(t *testing.T) {
	s := newSolver(t)
	out := mustReplan(t, s, envRound("env", 1, "shell:ls /data → No such file or directory"))
	d := out.Directive
	if d == nil || d.Directive != contract.DirectiveChangePath || d.PrevDirective != contract.DirectiveInit {
		t.Fatalf("first environmental round: %+v", out)
	}
	if d.GradL != 0 || out.Signals.Round != 1 || out.Signals.Replans != 0 || d.BudgetPressure != 0 {
		t.Errorf("first round signals %+v, directive %+v", out.Signals, d)
	}
	if !reflect.DeepEqual(d.BlockedTargets, []string{"shell:ls /data"}) || len(d.BlockedTools) != 0 || d.BlockedTools == nil {
		t.Errorf("first round blocks tools %#v targets %#v", d.BlockedTools, d.BlockedTargets)
	}
	out = mustReplan(t, s, logicalRound("logic", "grep:TODO src/ → 0 matches", "grep:FIXME src/ → 0 matches", "wc:-l out.txt → 0"))
	d = out.Directive
	if d.Directive != contract.DirectiveBreakSymmetry || d.PrevDirective != contract.DirectiveInit || d.FailureClass != contract.FailureLogical {
		t.Fatalf("first logical round: %+v", d)
	}
	if !reflect.DeepEqual(d.BlockedTools, []string{"grep", "wc"}) || len(d.BlockedTargets) != 0 || d.BlockedTargets == nil {
		t.Errorf("break_symmetry blocks tools %#v targets %#v", d.BlockedTools, d.BlockedTargets)
	}
	// An OutcomeSummary as a task's first message is a first-try accept.
	out, err := s.HandleOutcome(context.Background(), &contract.OutcomeSummary{TaskID: "happy", Summary: "done", Output: "42"})
	if err != nil {
		t.Fatal(err)
	}
	f := out.Final
	if f == nil || f.Directive != contract.DirectiveAccept || f.PrevDirective != contract.DirectiveInit ||
		f.Replans != 0 || f.GradL != 0 || f.Loss != (contract.Loss{}) || f.Output != "42" || f.Summary != "done" {
		t.Errorf("first-try accept: %+v", f)
	}
}

// init→change_path→refine (worsening, widened)→refine (improving, narrowed)→success, with
// the loss worked out by hand from the seed's defaults.
func TestChainAndTargetAccumulation(t *testing.T) {
	s := newSolver(t)
	outs := runSteps(t, s, []step{
		// D=0.5 P=0 Ω=0: L = 0.3
		{req: envRound("t1", 1, "shell:ls /data → No such file"), prev: "init", directive: "change_path",
			loss: contract.Loss{D: 0.5, P: 0, Omega: 0, L: 0.3}, grad: 0},
		// D=1 Ω=0.2: L = 0.6 + 0.08 = 0.68, ∇L = 0.38
		{req: envRound("t1", 2, "shell:ls /mnt/data → No such file", "read_file:/mnt/data/index → denied"), prev: "change_path", directive: "refine",
			loss: contract.Loss{D: 1, P: 0, Omega: 0.2, L: 0.68}, grad: 0.38},
		// D=0.5 Ω=0.4: L = 0.3 + 0.16 = 0.46, ∇L = -0.22
		{req: envRound("t1", 1, "shell:ls /srv/data → No such file"), prev: "refine", directive: "refine",
			loss: contract.Loss{D: 0.5, P: 0, Omega: 0.4, L: 0.46}, grad: -0.22},
		// one of four criteria fails: D=0.25 ≤ δ; Ω=0.6: L = 0.15 + 0.24 = 0.39
		{req: func() *contract.ReplanRequest {
			o := outcome("s1", "failed", []string{"shell:ls /srv/data2 → ok"}, pass("a"), pass("b"), pass("c"), fail("d", "", "environmental"))
			o.Output = "3 of 4 files"
			return replan("t1", 0, o, outcome("s2", "matched", nil))
		}(), prev: "refine", directive: "success",
			loss: contract.Loss{D: 0.25, P: 0, Omega: 0.6, L: 0.39}, grad: -0.07},
	})
	want := [][]string{
		{"shell:ls /data"},
		{"read_file:/mnt/data/index", "shell:ls /data", "shell:ls /mnt/data"}, // worsening refine: every target so far
		// improving refine: adds the latest failure only; what was blocked stays blocked
		{"read_file:/mnt/data/index", "shell:ls /data", "shell:ls /mnt/data", "shell:ls /srv/data"},
	}
	for i, w := range want {
		if got := outs[i].Directive.BlockedTargets; !reflect.DeepEqual(got, w) {
			t.Errorf("round %d blocked_targets %q, want %q", i+1, got, w)
		}
	}
	if f := outs[3].Final; f.Replans != 3 || !reflect.DeepEqual(f.Output, map[string]any{"s1": "3 of 4 files"}) {
		t.Errorf("success: replans %d output %v", f.Replans, f.Output)
	}
	if got := s.OpenTasks(); len(got) != 0 {
		t.Errorf("open tasks after success: %v", got)
	}
}

// Targets keep accumulating through rounds whose directive blocks tools instead.
func TestTargetsAccumulateAcrossBreakSymmetry(t *testing.T) {
	s := newSolver(t)
	mixed := replan("t", 0, outcome("s1", "failed", []string{"curl:https://c.example/x → 503"},
		fail("a", contract.ModeVerifiable, "logical"), fail("b", contract.ModeVerifiable, "environmental")))
	outs := runSteps(t, s, []step{
		{req: envRound("t", 2, "fetch:https://a.example/x → 503"), prev: "init", directive: "change_path", grad: 0},
		// D=1 P=1 Ω=0.2: L = 0.6 + 0.24 + 0.08 = 0.92 → worsening, logical: change_approach
		{req: logicalRound("t", "fetch:https://b.example/x → wrong page"), prev: "change_path", directive: "change_approach", grad: 0.32},
		// D=1 P=0.5 Ω=0.4: L = 0.6 + 0.18·0.5 + 0.16 = 0.85, ∇L = -0.07: plateau, P ≤ ρ → change_path
		{req: mixed, prev: "change_approach", directive: "change_path", grad: -0.07},
	})
	// change_approach adds no target, and the one change_path blocked stays blocked.
	if got := outs[1].Directive; !reflect.DeepEqual(got.BlockedTargets, []string{"fetch:https://a.example/x"}) || !reflect.DeepEqual(got.BlockedTools, []string{"fetch"}) {
		t.Errorf("change_approach blocks tools %q targets %q", got.BlockedTools, got.BlockedTargets)
	}
	// change_path adds every target tried, the change_approach round's included.
	want := []string{"curl:https://c.example/x", "fetch:https://a.example/x", "fetch:https://b.example/x"}
	if got := outs[2].Directive.BlockedTargets; !reflect.DeepEqual(got, want) {
		t.Errorf("change_path after three rounds blocks %q, want %q", got, want)
	}
}

// capped loads the shipped rules with the opt-in replan cap set to n.
func capped(t *testing.T, n int) *Solver {
	t.Helper()
	s, err := New(loadEdited(t, "replan_cap: 0 ", fmt.Sprintf("replan_cap: %d ", n)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The same environmental wall every round, fast enough that Ω is only the replan share.
// As shipped (seed 000's table, no cap) the fourth round, at Ω = 0.6 < θ, is cell 13 and
// changes path; the fifth finds Ω = 0.8 = θ and abandons for the budget. With the opt-in
// cap at max_replans, the fourth round abandons instead; one within δ still succeeds.
func TestReplansCap(t *testing.T) {
	p := loadParams(t)
	var steps []step
	prev := "init"
	for i := range p.MaxReplans {
		// D=1 P=0: L = 0.6 + 0.08·i; ∇L = 0.08 < ε from the second round on
		steps = append(steps, step{req: envRound("cap", 2, fmt.Sprintf("shell:ls /d%d → none", i)), prev: prev, directive: "change_path", grad: map[bool]float64{true: 0, false: 0.08}[i == 0]})
		prev = "change_path"
	}
	fourth := step{req: envRound("cap", 2, "shell:ls /last → none"), prev: prev, directive: "change_path", grad: 0.08}
	fifth := step{req: envRound("cap", 2, "shell:ls /after → none"), prev: "change_path", directive: "abandon", grad: 0.08}
	outs := runSteps(t, newSolver(t), append(append(steps[:len(steps):len(steps)], fourth), fifth))
	if r := outs[3]; r.Rule != "change_path_stuck_environmental" || r.Signals.Replans != p.MaxReplans || r.Signals.Omega >= p.Theta {
		t.Errorf("uncapped, round 4: rule %s, signals %+v; want cell 13 below θ", r.Rule, r.Signals)
	}
	if last := outs[4]; last.Rule != "abandon_budget_spent" || last.Final.Replans != p.MaxReplans+1 || last.Final.Loss.Omega < p.Theta {
		t.Errorf("uncapped, round 5: rule %s, %+v; want the budget spent", last.Rule, last.Final)
	}

	capAt := fourth
	capAt.directive = "abandon"
	outs = runSteps(t, capped(t, p.MaxReplans), append(steps[:len(steps):len(steps)], capAt))
	last := outs[len(outs)-1]
	if f := last.Final; last.Rule != "abandon_replans_spent" || f.Replans != p.MaxReplans || f.Loss.Omega >= p.Theta ||
		f.Summary != "Abandoned: the replan cap is reached (3 replans issued, replan_cap = 3) and the result is still beyond δ = 0.3. Distance left: D = 1. Gap: criteria unmet" {
		t.Errorf("cap: rule %s, %+v", last.Rule, f)
	}

	// The same history, and a last round within δ: success, not abandon.
	s := capped(t, p.MaxReplans)
	runSteps(t, s, steps)
	near := replan("cap", 0, outcome("s1", "failed", []string{"shell:ls /e → ok"}, pass("a"), pass("b"), pass("c"), fail("d", "", "environmental")))
	if out := mustReplan(t, s, near); out.Final == nil || out.Final.Directive != contract.DirectiveSuccess {
		t.Errorf("a round within δ at the cap: rule %s, %+v", out.Rule, out)
	}
}

func TestLaw2KillSwitch(t *testing.T) {
	s := newSolver(t)
	outs := runSteps(t, s, []step{
		// L = 0.3
		{req: envRound("k", 1, "shell:ls /a → none"), prev: "init", directive: "change_path"},
		// L = 0.68, ∇L = 0.38: first worsening round
		{req: envRound("k", 2, "shell:ls /b → none"), prev: "change_path", directive: "refine", grad: 0.38},
		// D=1 P=1 Ω=0.4: L = 0.6 + 0.18 + 0.16 = 0.94, ∇L = 0.26: second → abandon, Ω < θ
		{req: logicalRound("k", "shell:ls /c → wrong"), prev: "refine", directive: "abandon", grad: 0.26},
	})
	f := outs[2].Final
	if f.Loss.Omega >= s.Params().Theta {
		t.Fatalf("Law 2 case has Ω = %v ≥ θ; it must abandon below the budget", f.Loss.Omega)
	}
	if outs[2].Rule != "law2_kill_switch" || !strings.Contains(f.Summary, "2 consecutive rounds") || f.Output != nil || f.Replans != 2 {
		t.Errorf("Law 2 abandon: rule %s, %+v", outs[2].Rule, f)
	}
}

func TestLaw2CounterResets(t *testing.T) {
	s := newSolver(t)
	outs := runSteps(t, s, []step{
		{req: envRound("r", 1, "shell:ls /a → none"), prev: "init", directive: "change_path"},               // L 0.3
		{req: envRound("r", 2, "shell:ls /b → none"), prev: "change_path", directive: "refine", grad: 0.38}, // L 0.68, worsening 1
		// D=1 P=0 Ω=0.4: L = 0.76, ∇L = 0.08 leaves the worsening range: counter back to 0
		{req: envRound("r", 2, "shell:ls /c → none"), prev: "refine", directive: "change_path", grad: 0.08},
		// D=1 P=1 Ω=0.6: L = 0.6 + 0.12 + 0.24 = 0.96, ∇L = 0.2: worsening again, but only
		// once, so no Law 2: cell 22, Ω < θ
		{req: logicalRound("r", "shell:ls /d → wrong"), prev: "change_path", directive: "change_approach", grad: 0.2},
	})
	if outs[3].Rule != "change_approach_moving_logical" {
		t.Errorf("round 4 decided by %s, want change_approach_moving_logical", outs[3].Rule)
	}
	if w := []int{0, 1, 0, 1}; outs[0].Signals.Worsening != w[0] || outs[1].Signals.Worsening != w[1] ||
		outs[2].Signals.Worsening != w[2] || outs[3].Signals.Worsening != w[3] {
		t.Errorf("worsening counts %d %d %d %d, want %v", outs[0].Signals.Worsening, outs[1].Signals.Worsening,
			outs[2].Signals.Worsening, outs[3].Signals.Worsening, w)
	}
}

func TestAbandonByBudget(t *testing.T) {
	s := newSolver(t)
	req := envRound("b", 2, "shell:ls /x → none")
	req.ElapsedMS = 300000 // Ω = 0.4 on the first round
	runSteps(t, s, []step{
		{req: req, prev: "init", directive: "change_path"},
	})
	// Four more rounds: replans 1, 2: Ω = 0.6, 0.8 ≥ θ on the third.
	again := *req
	outs := runSteps(t, s, []step{
		{req: &again, prev: "change_path", directive: "change_path", grad: 0.08},
		{req: &again, prev: "change_path", directive: "abandon", grad: 0.08},
	})
	if f := outs[1].Final; outs[1].Rule != "abandon_budget_spent" || f.Loss.Omega != 0.8 || !strings.Contains(f.Summary, "budget is spent") {
		t.Errorf("budget abandon: rule %s %+v", outs[1].Rule, f)
	}
}

func TestChangeApproachModulation(t *testing.T) {
	two := func(task string, logicalFirst bool, calls1, calls2 []string) *contract.ReplanRequest {
		c1, c2 := "logical", "environmental"
		if !logicalFirst {
			c1, c2 = c2, c1
		}
		return replan(task, 0,
			outcome("s1", "failed", calls1, fail("a", "", "logical"), fail("x", "", c1)),
			outcome("s2", "failed", calls2, fail("b", "", c2)))
	}
	// break_symmetry: every tool of the failing subtasks, whatever their class.
	s := newSolver(t)
	outs := runSteps(t, s, []step{
		{req: logicalRound("w", "grep:a → none"), prev: "init", directive: "break_symmetry"}, // L 0.9
		// D=1 P=2/3 Ω=0.2: L = 0.6 + 0.24·0.666667 + 0.08 = 0.84, ∇L = -0.06: plateau
		{req: two("w", true, []string{"sed:s/a/b/ f → no change"}, []string{"find:/tmp → none"}), prev: "break_symmetry", directive: "break_symmetry", grad: -0.06},
	})
	if got := outs[1].Directive.BlockedTools; !reflect.DeepEqual(got, []string{"find", "sed"}) {
		t.Errorf("break_symmetry tools %q", got)
	}
	// Worsening with nothing blocked before: the failing subtasks' tools.
	s = newSolver(t)
	outs = runSteps(t, s, []step{
		{req: envRound("w", 1, "grep:a → none"), prev: "init", directive: "change_path"}, // L 0.3
		// D=1 P=1 Ω=0.2: L = 0.92 → worsening change_approach
		{req: logicalRound("w", "awk:{print} f → wrong"), prev: "change_path", directive: "change_approach", grad: 0.62},
		// D=1 P=2/3 Ω=0.4: L = 0.6 + 0.18·0.666667 + 0.16 = 0.88, ∇L -0.04: plateau, logical
		{req: two("w", true, []string{"sed:x → no change"}, []string{"find:/tmp → none"}), prev: "change_approach", directive: "break_symmetry", grad: -0.04},
	})
	if got := outs[1].Directive.BlockedTools; !reflect.DeepEqual(got, []string{"awk"}) {
		t.Errorf("worsening change_approach tools %q", got)
	}
	// Improving: only the tools of the subtasks that failed logically.
	s = newSolver(t)
	runSteps(t, s, []step{
		{req: logicalRound("i", "grep:a → none"), prev: "init", directive: "break_symmetry"}, // L 0.9, blocks grep
	})
	req := two("i", true, []string{"sed:x → no change"}, []string{"find:/tmp → none"})
	req.Outcomes = append(req.Outcomes, outcome("s3", "matched", []string{"cat:f → ok"}, pass("c"), pass("d"), pass("e")))
	// D = 3/6 = 0.5, P = 2/3, Ω = 0.2: L = 0.3 + 0.16 + 0.08 = 0.54, ∇L = -0.36: improving, logical
	out := mustReplan(t, s, req)
	if d := out.Directive; d.Directive != "change_approach" || !reflect.DeepEqual(d.BlockedTools, []string{"sed"}) {
		t.Errorf("improving change_approach: %s tools %q (signals %+v)", d.Directive, d.BlockedTools, out.Signals)
	}
	// Worsening after that: s1's and s2's tools plus grep (break_symmetry) and sed (above).
	req = two("i", false, []string{"perl:-pe f → wrong"}, []string{"find:/tmp → none"})
	// D = 1, P = 2/3, Ω = 0.4: L = 0.6 + 0.12 + 0.16 = 0.88, ∇L = 0.34
	out = mustReplan(t, s, req)
	if d := out.Directive; d.Directive != "change_approach" || !reflect.DeepEqual(d.BlockedTools, []string{"find", "grep", "perl", "sed"}) {
		t.Errorf("worsening change_approach: %s tools %q (signals %+v)", d.Directive, d.BlockedTools, out.Signals)
	}
}

func TestTerminalClosesTask(t *testing.T) {
	s := newSolver(t)
	runSteps(t, s, []step{
		{req: envRound("c", 1, "shell:ls /a → none"), prev: "init", directive: "change_path"},
		{sum: &contract.OutcomeSummary{TaskID: "c", Summary: "found it"}, prev: "change_path", directive: "accept", grad: -0.22},
		// The same task_id again starts from init.
		{req: envRound("c", 1, "shell:ls /a → none"), prev: "init", directive: "change_path"},
	})
}

func TestInterleavedTasks(t *testing.T) {
	s := newSolver(t)
	runSteps(t, s, []step{
		{req: envRound("a", 1, "shell:ls /a → none"), prev: "init", directive: "change_path"},
		{req: logicalRound("b", "grep:x → none"), prev: "init", directive: "break_symmetry"},
		{req: envRound("a", 2, "shell:ls /a2 → none"), prev: "change_path", directive: "refine", grad: 0.38},
		{sum: &contract.OutcomeSummary{TaskID: "b"}, prev: "break_symmetry", directive: "accept", grad: -0.82},
	})
	if got := s.OpenTasks(); !reflect.DeepEqual(got, []string{"a"}) {
		t.Errorf("open tasks %v", got)
	}
}

type memoryLog struct{ writes []contract.Megram }

func (m *memoryLog) Write(g contract.Megram) { m.writes = append(m.writes, g) }

var _ MemoryWriter = (*memoryLog)(nil)

func TestMemoryWrites(t *testing.T) {
	mem := &memoryLog{}
	start := time.Date(2026, 2, 25, 9, 0, 0, 0, time.UTC)
	s := newSolver(t, WithMemory(mem, clock.NewStep(start, time.Second), &engine.SeqIDs{Prefix: "m"}))
	req := envRound("m", 1, "shell:ls /data → none", "read_file:/data/x → denied", "noop")
	req.Intent = "Collect the weekly logs"
	mustReplan(t, s, req)                                // change_path, two targets
	mustReplan(t, s, logicalRound("m", "grep:x → none")) // change_approach: one write per tool
	// The OutcomeSummary names no intent: the task's, from its first round, tags the write.
	if _, err := s.HandleOutcome(context.Background(), &contract.OutcomeSummary{TaskID: "m"}); err != nil {
		t.Fatal(err)
	}
	want := []contract.Megram{
		{ID: "m-1", Level: "M", CreatedAt: start, LastRecalledAt: start, Space: "tool:read_file", Entity: "path:/data/x",
			State: "change_path", F: 0.3, Sigma: 0, K: 0.2},
		{ID: "m-2", Level: "M", CreatedAt: start, LastRecalledAt: start, Space: "tool:shell", Entity: "path:ls /data",
			State: "change_path", F: 0.3, Sigma: 0, K: 0.2},
		{ID: "m-3", Level: "M", CreatedAt: start.Add(time.Second), LastRecalledAt: start.Add(time.Second),
			Space: "tool:grep", Entity: "env:local", State: "change_approach", F: 0.85, Sigma: -1, K: 0.05},
		{ID: "m-4", Level: "M", CreatedAt: start.Add(2 * time.Second), LastRecalledAt: start.Add(2 * time.Second),
			Space: "intent:collect_the_weekly", Entity: "env:local", State: "accept", F: 0.9, Sigma: 1, K: 0.05},
		{ID: "m-5", Level: "M", CreatedAt: start.Add(2 * time.Second), LastRecalledAt: start.Add(2 * time.Second),
			Space: "intent.full:collect_the_weekly_logs", Entity: "env:local", State: "accept", F: 0.9, Sigma: 1, K: 0.05},
	}
	if len(mem.writes) != len(want) {
		t.Fatalf("%d writes, want %d: %+v", len(mem.writes), len(want), mem.writes)
	}
	for i := range want {
		got := mem.writes[i]
		if got.Content == "" {
			t.Errorf("write %d has no content", i)
		}
		got.Content = ""
		if got != want[i] {
			t.Errorf("write %d:\n got %+v\nwant %+v", i, got, want[i])
		}
	}
	if _, err := New(loadRules(t), WithMemory(mem, nil, nil)); err == nil {
		t.Error("WithMemory without clock and IDs was accepted")
	}
}

func TestQuantize(t *testing.T) {
	for _, tc := range []struct {
		state       string
		f, sigma, k float64
	}{
		{"abandon", 0.95, -1, 0.05}, {"accept", 0.9, 1, 0.05}, {"change_approach", 0.85, -1, 0.05},
		{"success", 0.8, 1, 0.05}, {"break_symmetry", 0.75, 1, 0.05}, {"change_path", 0.3, 0, 0.2},
		{"refine", 0.1, 0.5, 0.5}, {"init", 0, 0, 0},
	} {
		f, sigma, k := Quantize(tc.state)
		if f != tc.f || sigma != tc.sigma || k != tc.k {
			t.Errorf("Quantize(%s) = %v, %v, %v; want %v, %v, %v", tc.state, f, sigma, k, tc.f, tc.sigma, tc.k)
		}
	}
}

func TestSolverErrors(t *testing.T) {
	s := newSolver(t)
	_, err := s.HandleReplan(context.Background(), &contract.ReplanRequest{})
	var ie *InputError
	if !errors.As(err, &ie) || ie.Type != "ReplanRequest" || ie.Err.Error() != "missing task_id" {
		t.Errorf("missing task_id: %v", err)
	}
	// A rule set whose rules choose an objective that is not a macro-state.
	rs := loadEdited(t, "when: signals != nil && signals.round == 0", "when: signals != nil && signals.round >= 0",
		"salience: 10\n", "salience: 1000\n")
	s2, err := New(rs)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s2.HandleReplan(context.Background(), envRound("x", 1, "shell:a → b"))
	if err == nil || !strings.Contains(err.Error(), `rule plan_first_round chose objective "plan", which is not a macro-state (task x)`) {
		t.Errorf("plan objective: %v", err)
	}
	if got := s2.OpenTasks(); len(got) != 0 {
		t.Errorf("a failed first round left state behind: %v", got)
	}
	// A rule set whose rules accept a ReplanRequest.
	rs = loadEdited(t, "signals.round > 0 && signals.all_matched", "signals.round > 0")
	s3, _ := New(rs)
	if _, err = s3.HandleReplan(context.Background(), envRound("x", 1, "shell:a → b")); err == nil ||
		!strings.Contains(err.Error(), "chose accept, which needs an OutcomeSummary") {
		t.Errorf("accept of a ReplanRequest: %v", err)
	}
}

// The params of the rule set drive the arithmetic too: an edited α changes L.
func TestEditedParamsChangeLoss(t *testing.T) {
	req := envRound("a", 1, "shell:ls /x → none")
	base := mustReplan(t, newSolver(t), req).Directive.Loss
	s, err := New(loadEdited(t, "alpha: 0.6 ", "alpha: 0.9 "))
	if err != nil {
		t.Fatal(err)
	}
	edited := mustReplan(t, s, req).Directive.Loss
	if base.L != 0.3 || edited.L != 0.45 || edited.D != base.D {
		t.Errorf("L with α = 0.6: %v, with α = 0.9: %v; want 0.3 and 0.45", base.L, edited.L)
	}
}
