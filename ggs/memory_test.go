package ggs

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
)

// TestEveryActionStateWrites: each action state writes what its round learned, with its
// row of the quantization matrix. break_symmetry and change_approach write one Megram
// per tool they block on (tool:<name>, env:local) — a widened change_approach the tools
// it carries too —, change_path and refine one per target they add on (tool:<name>,
// path:<target>), and a retry after a fault of the machinery nothing. (Terminal states:
// TestMemoryWrites and the scenario goldens.)
func TestEveryActionStateWrites(t *testing.T) {
	two := func(task string, logicalFirst bool, calls1, calls2 []string) *contract.ReplanRequest {
		c1, c2 := "logical", "environmental"
		if !logicalFirst {
			c1, c2 = c2, c1
		}
		return replan(task, 0,
			outcome("s1", "failed", calls1, fail("a", "", "logical"), fail("x", "", c1)),
			outcome("s2", "failed", calls2, fail("b", "", c2)))
	}
	improving := two("i", true, []string{"sed:x → no change"}, []string{"find:/tmp → none"})
	improving.Outcomes = append(improving.Outcomes, outcome("s3", "matched", []string{"cat:f → ok"}, pass("c"), pass("d"), pass("e")))
	const (
		bs = "break_symmetry f=0.75 σ=1 k=0.05"
		ca = "change_approach f=0.85 σ=-1 k=0.05"
		cp = "change_path f=0.3 σ=0 k=0.2"
		rf = "refine f=0.1 σ=0.5 k=0.5"
	)
	for _, tc := range []struct {
		name   string
		rounds []*contract.ReplanRequest
		want   [][]string // per round: "space entity state f σ k"
	}{
		{name: "tools", rounds: []*contract.ReplanRequest{
			logicalRound("i", "grep:a → none"), // break_symmetry blocks grep
			improving,                          // improving change_approach: the logical subtask's sed
			two("i", false, []string{"perl:-pe f → wrong"}, []string{"find:/tmp → none"}), // worsening: carries grep and sed
			faulted("i", contract.FaultModelUnavailable),                                  // retry: learned nothing about the task
		}, want: [][]string{
			{"tool:grep env:local " + bs},
			{"tool:sed env:local " + ca},
			{"tool:find env:local " + ca, "tool:grep env:local " + ca, "tool:perl env:local " + ca, "tool:sed env:local " + ca},
			{},
		}},
		{name: "targets", rounds: []*contract.ReplanRequest{
			envRound("p", 1, "shell:ls /a → none"), // change_path
			envRound("p", 2, "shell:ls /b → none"), // a worsening refine adds every target tried, /a again
			faulted("p", contract.FaultModelUnavailable),
		}, want: [][]string{
			{"tool:shell path:ls /a " + cp},
			{"tool:shell path:ls /a " + rf, "tool:shell path:ls /b " + rf},
			{},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &memoryLog{}
			s := newSolver(t, WithMemory(mem, clock.NewStep(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Second), &engine.SeqIDs{Prefix: "m"}))
			var got [][]string
			var dirs []string
			take := func() {
				var row []string
				for _, m := range mem.writes {
					row = append(row, fmt.Sprintf("%s %s %s f=%g σ=%g k=%g", m.Space, m.Entity, m.State, m.F, m.Sigma, m.K))
					if !strings.HasPrefix(m.Content, m.State+": ") {
						t.Errorf("content %q does not say which state wrote it", m.Content)
					}
				}
				if row == nil {
					row = []string{}
				}
				got, mem.writes = append(got, row), nil
			}
			for _, req := range tc.rounds {
				dirs = append(dirs, directiveOf(mustReplan(t, s, req)))
				take()
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("directives %v wrote\n %q\nwant\n %q", dirs, got, tc.want)
			}
		})
	}
}

// TestMegramIDScheme: the Megrams GGS writes take their IDs from the injected
// engine.IDSource; in a live run that is engine.RandomIDs, whose 32 lowercase hex digits are
// the one ID scheme of every Megram (memory mints the same form for imports).
func TestMegramIDScheme(t *testing.T) {
	mem := &memoryLog{}
	s := newSolver(t, WithMemory(mem, clock.NewStep(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Second), engine.RandomIDs{}))
	mustReplan(t, s, envRound("r", 1, "shell:ls /a → none", "read_file:b → none")) // change_path: two targets
	mustReplan(t, s, logicalRound("r", "grep:x → none"))                           // change_approach: one tool
	if len(mem.writes) != 3 {
		t.Fatalf("%d writes, want 3", len(mem.writes))
	}
	for _, m := range mem.writes {
		if !megramIDScheme.MatchString(m.ID) {
			t.Errorf("%s (%s, %s) has id %q, want 32 lowercase hex digits", m.State, m.Space, m.Entity, m.ID)
		}
	}
}

var megramIDScheme = regexp.MustCompile(`^[0-9a-f]{32}$`)
