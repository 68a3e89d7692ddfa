package memory

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// entryLine is one calibration entry in a fixed wording, so the table below can state
// every field that calibration reads and derives.
func entryLine(set string, e CalibrationEntry) string {
	var states []string
	for _, s := range e.States {
		states = append(states, fmt.Sprintf("%s×%d", s.State, s.N))
	}
	if e.Source == SourceSOP {
		return fmt.Sprintf("%s sop %s × %s %q σ %+.0f", set, e.Space, e.Entity, e.Content, e.Sigma)
	}
	return fmt.Sprintf("%s %s %s × %s att %.2f dec %+.2f failed %d neutral %d worked %d states [%s] of %d", set, e.Action,
		e.Space, e.Entity, e.Attention, e.Decision, e.Failed, e.Neutral, e.Worked, strings.Join(states, " "), e.StatesOf)
}

func calibrationLines(cal Calibration) []string {
	var out []string
	for _, set := range []struct {
		name string
		es   []CalibrationEntry
	}{{"must_not", cal.MustNot}, {"should_prefer", cal.ShouldPrefer}, {"caution", cal.Caution}} {
		for _, e := range set.es {
			out = append(out, entryLine(set.name, e))
		}
	}
	return out
}

// TestCalibratePairs: each kind of pair a plan can touch, seeded with the Megrams GGS
// writes for it, gives the entries the seed's action table says — and a pair that was
// not asked for is not read.
func TestCalibratePairs(t *testing.T) {
	const intent = "Deploy the service to staging"
	svc, sh := "config/service.yaml", "make deploy"
	changeApproach := Quantum{"change_approach", 0.85, -1, 0.05}
	for _, tc := range []struct {
		name string
		seed []struct {
			p Pair
			q Quantum
			n int
		}
		pairs []Pair
		want  []string
	}{
		{"intent pair, abandoned twice", []struct {
			p Pair
			q Quantum
			n int
		}{{IntentPair(intent), Quantum{"abandon", 0.95, -1, 0.05}, 2}},
			[]Pair{IntentPair(intent)},
			[]string{"must_not Avoid intent:deploy_the_service × env:local att 1.90 dec -1.90 failed 2 neutral 0 worked 0 states [abandon×2] of 2"}},
		{"tool pair, approach changed three times", []struct {
			p Pair
			q Quantum
			n int
		}{{ToolPair("shell"), changeApproach, 3}},
			[]Pair{IntentPair(intent), ToolPair("shell")},
			[]string{"must_not Avoid tool:shell × env:local att 2.55 dec -2.55 failed 3 neutral 0 worked 0 states [change_approach×3] of 3"}},
		{"tool × target pair, approach changed three times", []struct {
			p Pair
			q Quantum
			n int
		}{{TargetPair("read_file", svc), changeApproach, 3}},
			[]Pair{TargetPair("read_file", svc)},
			[]string{"must_not Avoid tool:read_file × path:config/service.yaml att 2.55 dec -2.55 failed 3 neutral 0 worked 0 states [change_approach×3] of 3"}},
		{"dead end twice is caution", []struct {
			p Pair
			q Quantum
			n int
		}{{TargetPair("shell", sh), Quantum{"change_path", 0.3, 0, 0.2}, 2}},
			[]Pair{TargetPair("shell", sh)},
			[]string{"caution Caution tool:shell × path:make deploy att 0.60 dec +0.00 failed 0 neutral 2 worked 0 states [change_path×2] of 2"}},
		{"a breakthrough is exploit", []struct {
			p Pair
			q Quantum
			n int
		}{{ToolPair("list_files"), Quantum{"break_symmetry", 0.75, 1, 0.05}, 1},
			{ToolPair("list_files"), Quantum{"refine", 0.1, 0.5, 0.5}, 1}},
			[]Pair{ToolPair("list_files")},
			[]string{"should_prefer Exploit tool:list_files × env:local att 0.85 dec +0.80 failed 0 neutral 0 worked 2 states [break_symmetry×1 refine×1] of 2"}},
		{"one refine is ignored", []struct {
			p Pair
			q Quantum
			n int
		}{{TargetPair("write_file", svc), Quantum{"refine", 0.1, 0.5, 0.5}, 1}},
			[]Pair{TargetPair("write_file", svc)}, nil},
		{"pairs not asked for are not read", []struct {
			p Pair
			q Quantum
			n int
		}{{TargetPair("shell", sh), changeApproach, 3},
			{ToolPair("read_file"), changeApproach, 3}},
			[]Pair{ToolPair("shell"), TargetPair("read_file", svc)}, nil},
		{"several pairs in the order asked, duplicates once", []struct {
			p Pair
			q Quantum
			n int
		}{{TargetPair("read_file", svc), changeApproach, 1},
			{ToolPair("shell"), Quantum{"success", 0.8, 1, 0.05}, 1}},
			[]Pair{ToolPair("shell"), TargetPair("read_file", svc), ToolPair("shell")},
			[]string{"must_not Avoid tool:read_file × path:config/service.yaml att 0.85 dec -0.85 failed 1 neutral 0 worked 0 states [change_approach×1] of 1",
				"should_prefer Exploit tool:shell × env:local att 0.80 dec +0.80 failed 0 neutral 0 worked 1 states [success×1] of 1"}},
	} {
		for _, bc := range backendCases {
			t.Run(tc.name+"/"+bc.name, func(t *testing.T) {
				e := newEnv(t, bc, nil)
				for _, s := range tc.seed {
					for i := 0; i < s.n; i++ {
						e.write(megram(s.p.Space, s.p.Entity, s.q.State, s.q.F, s.q.Sigma, s.q.K))
					}
				}
				cal, err := Calibrate(context.Background(), e.s.Reader(), tc.pairs)
				if err != nil {
					t.Fatal(err)
				}
				if got := calibrationLines(cal); !equalStrings(got, tc.want) {
					t.Errorf("calibration\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
				want := map[Pair]bool{}
				for _, p := range tc.pairs {
					want[p] = true
				}
				if len(cal.Pairs) != len(want) {
					t.Errorf("%d pairs read, want %d", len(cal.Pairs), len(want))
				}
				e.noErrors()
			})
		}
	}
}

// TestCalibrateSOPOnATarget: a constraint the Dreamer consolidated on a tool and target
// is a MUST NOT entry of that pair, after the pair's Avoid verdict.
func TestCalibrateSOPOnATarget(t *testing.T) {
	e := newEnv(t, backendCases[1], nil)
	p := TargetPair("shell", "make deploy")
	for i := 0; i < 6; i++ {
		e.write(megram(p.Space, p.Entity, "abandon", 0.95, -1, 0.05))
	}
	e.dream()
	cal, err := Calibrate(context.Background(), e.s.Reader(), []Pair{p})
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.MustNot) != 2 || cal.MustNot[0].Source != SourcePotentials || cal.MustNot[1].Source != SourceSOP ||
		cal.MustNot[1].State != KindConstraint || cal.MustNot[1].Space != p.Space || cal.MustNot[1].Entity != p.Entity {
		t.Fatalf("must_not = %v", calibrationLines(cal))
	}
}
