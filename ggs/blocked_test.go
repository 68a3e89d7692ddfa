package ggs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// randomRound draws one ReplanRequest of task: one to three subtasks, each matched or
// failed, with criteria of either class and mode (or none), tool calls over a small pool
// of tools and targets (so rounds repeat one another), an unparsable entry now and then,
// and sometimes R4b's verdicts on the merged result.
func randomRound(rng *rand.Rand, task string, elapsed int64) *contract.ReplanRequest {
	tools := []string{"shell", "fetch", "grep", "read_file"}
	targets := []string{"/a", "/b", "/c", "/d", "/e", "/f"}
	classes := []string{"logical", "environmental", ""}
	modes := []string{contract.ModeVerifiable, contract.ModePlausible, ""}
	var outs []contract.SubTaskOutcome
	for i := range 1 + rng.IntN(3) {
		var vs []contract.CriterionVerdict
		failed := false
		for j := range 1 + rng.IntN(3) {
			name := fmt.Sprintf("c%d%d", i, j)
			if rng.IntN(3) == 0 {
				vs = append(vs, pass(name))
				continue
			}
			failed = true
			vs = append(vs, fail(name, modes[rng.IntN(len(modes))], classes[rng.IntN(len(classes))]))
		}
		var calls []string
		for range rng.IntN(4) {
			calls = append(calls, tools[rng.IntN(len(tools))]+":"+targets[rng.IntN(len(targets))]+" → seen")
		}
		if rng.IntN(8) == 0 {
			calls = append(calls, "no separator")
		}
		status := contract.OutcomeMatched
		if failed || rng.IntN(5) == 0 {
			status = contract.OutcomeFailed
		}
		outs = append(outs, outcome(fmt.Sprintf("%s-s%d", task, i), status, calls, vs...))
	}
	req := replan(task, elapsed, outs...)
	if rng.IntN(4) == 0 {
		req.TaskCriteriaVerdicts = []contract.CriterionVerdict{fail("merged", "", classes[rng.IntN(len(classes))])}
	}
	return req
}

// Over random sequences of rounds of interleaved tasks, the blocked_targets of a task's
// PlanDirective contain those of its previous one (seed 000's key invariant: the ∇L
// modulation only limits what a round adds), and never a target no call of the task
// tried. Run with the shipped rules, and with a budget so wide that tasks run long.
func TestBlockedTargetsNeverShrink(t *testing.T) {
	seed := *propSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	ruleSets := map[string]func() *Solver{
		"shipped rules": func() *Solver { return newSolver(t) },
		"wide budget": func() *Solver {
			s, err := New(loadEdited(t, "theta: 0.8 ", "theta: 1.0 ", "max_replans: 3 ", "max_replans: 40 ", "law2_kill: 2 ", "law2_kill: 1000 "))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
	}
	for _, name := range []string{"shipped rules", "wide budget"} {
		t.Run(name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, seed^0x5851f42d4c957f2d))
			s := ruleSets[name]()
			last := map[string][]string{}  // task → blocked_targets of its last PlanDirective
			tried := map[string][]string{} // task → every "<tool>:<target>" its rounds called
			elapsed := map[string]int64{}  // task → elapsed_ms so far
			generation := map[string]int{} // task slot → tasks it has closed
			directives, longest, rounds := 0, 0, map[string]int{}
			for i := range 4000 {
				slot := fmt.Sprintf("t%d", rng.IntN(3))
				task := fmt.Sprintf("%s.%d", slot, generation[slot])
				elapsed[task] += int64(rng.IntN(20000))
				req := randomRound(rng, task, elapsed[task])
				for _, o := range req.Outcomes {
					for _, e := range o.ToolCalls {
						if c, ok := contract.ParseToolCall(e); ok && c.Target != "" {
							tried[task] = append(tried[task], c.Key())
						}
					}
				}
				out, err := s.HandleReplan(context.Background(), req)
				if err != nil {
					t.Fatalf("seed %d, round %d (%s): %v (rerun with -ggs.seed=%d)", seed, i, task, err, seed)
				}
				rounds[task]++
				longest = max(longest, rounds[task])
				if out.Final != nil {
					generation[slot]++
					continue
				}
				directives++
				got := out.Directive.BlockedTargets
				for _, prev := range last[task] {
					if !slices.Contains(got, prev) {
						t.Fatalf("seed %d, round %d (%s, %s→%s, ∇L %v): %q was blocked and is released; blocked %q, before %q (rerun with -ggs.seed=%d)",
							seed, i, task, out.Directive.PrevDirective, out.Directive.Directive, out.Directive.GradL, prev, got, last[task], seed)
					}
				}
				for _, b := range got {
					if !slices.Contains(tried[task], b) {
						t.Fatalf("seed %d, round %d (%s): blocks %q, which no call of the task tried (rerun with -ggs.seed=%d)", seed, i, task, b, seed)
					}
				}
				if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
					t.Fatalf("seed %d, round %d: blocked_targets %q not sorted and unique", seed, i, got)
				}
				last[task] = got
			}
			if directives < 500 {
				t.Errorf("seed %d: only %d PlanDirectives; the draw proves little", seed, directives)
			}
			t.Logf("seed %d: %d PlanDirectives, longest task %d rounds", seed, directives, longest)
		})
	}
}

// An improving refine adds only the latest round's targets: one tried in a round whose
// directive blocked tools instead stays unblocked, which a worsening refine would add.
func TestImprovingRefineAddsOnlyTheLatest(t *testing.T) {
	s := newSolver(t)
	outs := runSteps(t, s, []step{
		// D=1 P=1: L = 0.9; break_symmetry blocks grep, no target
		{req: logicalRound("n", "grep:x /etc → wrong"), prev: "init", directive: "break_symmetry"},
		// D=0.5 P=0 Ω=0.2: L = 0.3 + 0.08 = 0.38, ∇L = -0.52: improving refine
		{req: envRound("n", 1, "shell:ls /b → none"), prev: "break_symmetry", directive: "refine", grad: -0.52},
		// D=1 P=0 Ω=0.4: L = 0.6 + 0.16 = 0.76, ∇L = 0.38: worsening refine adds every target tried
		{req: envRound("n", 2, "shell:ls /c → none"), prev: "refine", directive: "refine", grad: 0.38},
	})
	for i, want := range [][]string{{}, {"shell:ls /b"}, {"grep:x /etc", "shell:ls /b", "shell:ls /c"}} {
		if got := outs[i].Directive.BlockedTargets; !reflect.DeepEqual(got, want) {
			t.Errorf("round %d (%s) blocks %q, want %q", i+1, outs[i].Directive.Directive, got, want)
		}
	}
}
