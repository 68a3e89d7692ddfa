package ggs

import (
	"math"
	"testing"

	"github.com/agentspine/spine/contract"
)

func TestDistanceAndImplausibility(t *testing.T) {
	reason := "executor gave up"
	traj := func(attempts ...[]string) []contract.GapAttempt {
		var out []contract.GapAttempt
		for i, failed := range attempts {
			a := contract.GapAttempt{Attempt: i + 1}
			for _, c := range failed {
				a.FailedCriteria = append(a.FailedCriteria, contract.FailedCriterion{Criterion: c, FailureClass: "logical"})
			}
			out = append(out, a)
		}
		return out
	}
	withTraj := func(o contract.SubTaskOutcome, g []contract.GapAttempt) contract.SubTaskOutcome {
		o.GapTrajectory = g
		return o
	}
	for _, tc := range []struct {
		name    string
		req     *contract.ReplanRequest
		d, p    float64
		class   string
		primary string
	}{
		{
			name: "one verifiable failure of two",
			req: replan("t", 0, outcome("s1", "failed", nil,
				pass("file exists"), fail("file is sorted", contract.ModeVerifiable, "logical"))),
			d: 0.5, p: 1, class: "logical", primary: "file is sorted",
		},
		{
			name: "missing mode counts as verifiable, whatever the trajectory",
			req: replan("t", 0, withTraj(outcome("s1", "failed", nil,
				pass("a"), fail("b", "", "environmental")), traj([]string{"b"}, nil, nil, nil))),
			d: 0.5, p: 0, class: "environmental", primary: "b",
		},
		{
			name: "plausible failure weighs k/N over the trajectory",
			req: replan("t", 0, withTraj(outcome("s1", "failed", nil,
				pass("a"), fail("reads well", contract.ModePlausible, "logical")),
				traj([]string{"reads well"}, []string{"a"}, []string{"reads well"}))),
			d: 0.333333, p: 1, class: "logical", primary: "reads well",
		},
		{
			name: "plausible failure on every attempt weighs 1",
			req: replan("t", 0, withTraj(outcome("s1", "failed", nil,
				fail("reads well", contract.ModePlausible, "logical")),
				traj([]string{"reads well"}, []string{"reads well"}))),
			d: 1, p: 1, class: "logical", primary: "reads well",
		},
		{
			name: "plausible failure without trajectory weighs 1",
			req: replan("t", 0, outcome("s1", "failed", nil,
				pass("a"), pass("b"), pass("c"), fail("reads well", contract.ModePlausible, "environmental"))),
			d: 0.25, p: 0, class: "environmental", primary: "reads well",
		},
		{
			name: "plausible failure missing from its trajectory counts the final attempt",
			req: replan("t", 0, withTraj(outcome("s1", "failed", nil,
				fail("reads well", contract.ModePlausible, "logical")), traj(nil, nil, nil, nil))),
			d: 0.25, p: 1, class: "logical", primary: "reads well",
		},
		{
			name: "the heaviest failure is the failed criterion; the first on ties",
			req: replan("t", 0,
				withTraj(outcome("s1", "failed", nil, fail("soft", contract.ModePlausible, "logical")), traj([]string{"soft"}, nil)),
				outcome("s2", "failed", nil, fail("hard one", "", "environmental"), fail("hard two", "", "environmental"))),
			d: 0.833333, p: 0.333333, class: "environmental", primary: "hard one",
		},
		{
			name: "R4b's task-criteria verdicts count when every subtask matched",
			req: func() *contract.ReplanRequest {
				r := replan("t", 0, outcome("s1", "matched", nil, pass("a")), outcome("s2", "matched", nil, pass("b")))
				r.TaskCriteriaVerdicts = []contract.CriterionVerdict{fail("report covers all weeks", "", "logical"), pass("report is markdown")}
				return r
			}(),
			d: 0.25, p: 1, class: "logical", primary: "report covers all weeks",
		},
		{
			name: "equal classes are mixed",
			req: replan("t", 0, outcome("s1", "failed", nil,
				fail("a", "", "logical"), fail("b", "", "environmental"))),
			d: 1, p: 0.5, class: "mixed", primary: "a",
		},
		{
			name: "failures without class give P = 0 and a mixed class",
			req:  replan("t", 0, outcome("s1", "failed", nil, fail("a", "", ""), pass("b"))),
			d:    0.5, p: 0, class: "mixed", primary: "a",
		},
		{
			name: "a failed outcome without a failed verdict counts as one failure",
			req: func() *contract.ReplanRequest {
				o := outcome("s2", "failed", nil)
				o.FailureReason = &reason
				return replan("t", 0, outcome("s1", "matched", nil, pass("a")), o)
			}(),
			d: 0.5, p: 0, class: "mixed", primary: reason,
		},
		{
			name: "nothing failed: the rejection itself counts as one failure",
			req:  replan("t", 0, outcome("s1", "matched", nil, pass("a"), pass("b"))),
			d:    0.333333, p: 0, class: "mixed", primary: "criteria unmet",
		},
		{
			name: "an empty request is total distance",
			req:  &contract.ReplanRequest{TaskID: "t"},
			d:    1, p: 0, class: "mixed", primary: "merged result rejected",
		},
	} {
		tl := TallyReplan(tc.req)
		if tl.D() != tc.d || tl.P() != tc.p || tl.Class() != tc.class || tl.Primary != tc.primary {
			t.Errorf("%s: D=%v P=%v class=%s primary=%q; want D=%v P=%v class=%s primary=%q",
				tc.name, tl.D(), tl.P(), tl.Class(), tl.Primary, tc.d, tc.p, tc.class, tc.primary)
		}
	}
}

func TestOmega(t *testing.T) {
	p := seedDefaults
	for _, tc := range []struct {
		replans int
		elapsed int64
		want    float64
	}{
		{0, 0, 0},
		{1, 150000, 0.4}, // 0.6·1/3 + 0.4·0.5
		{3, 0, 0.6},      // every replan spent, no time
		{4, 0, 0.8},      // the terms are not capped one by one: one more replan reaches θ
		{2, 300000, 0.8}, // 0.4 + 0.4
		{10, 900000, 1},  // clamped
		{0, -5000, 0},    // a negative elapsed time counts as 0
		{0, 1, 0.000001}, // 1.33e-6 rounds to the signal resolution
		{0, 299999, 0.399999},
	} {
		got := Omega(p, tc.replans, tc.elapsed)
		if got != tc.want {
			t.Errorf("Omega(replans=%d, elapsed=%d) = %v, want %v", tc.replans, tc.elapsed, got, tc.want)
		}
	}
	// Guarded divisions: no NaN and no Inf whatever the params.
	q := p
	q.MaxReplans, q.TimeBudgetMS = 0, 0
	if got := Omega(q, 3, 1000); got != 0 {
		t.Errorf("Omega with zero budgets = %v, want 0", got)
	}
}

func TestLossAndBetaEff(t *testing.T) {
	p := seedDefaults
	for _, tc := range []struct {
		d, pp, omega  float64
		betaEff, loss float64
	}{
		{0, 0, 0, 0.3, 0},
		{1, 1, 0, 0.3, 0.9},             // 0.6 + 0.3
		{0.5, 1, 0.4, 0.18, 0.64},       // 0.3 + 0.18 + 0.16
		{1, 1, 1, 0, 1},                 // β_eff vanishes at a spent budget: 0.6 + 0 + 0.4
		{0.333333, 0.5, 0.2, 0.24, 0.4}, // 0.2 + 0.12 + 0.08, rounded
	} {
		if got := BetaEff(p, tc.omega); got != tc.betaEff {
			t.Errorf("BetaEff(Ω=%v) = %v, want %v", tc.omega, got, tc.betaEff)
		}
		if got := Loss(p, tc.d, tc.pp, tc.omega); got != tc.loss {
			t.Errorf("Loss(D=%v, P=%v, Ω=%v) = %v, want %v", tc.d, tc.pp, tc.omega, got, tc.loss)
		}
	}
}

func TestGradientRounding(t *testing.T) {
	if g := Gradient(0.9, 0.1, true); g != 0 {
		t.Errorf("first round ∇L = %v, want 0", g)
	}
	// 0.7 − 0.6 is 0.09999999999999998 in float64; the signal is exactly ε.
	if g := Gradient(0.7, 0.6, false); g != 0.1 {
		t.Errorf("∇L(0.7, 0.6) = %v, want 0.1", g)
	}
	g := Gradient(0.3, 0.3000000001, false)
	if g != 0 || math.Signbit(g) {
		t.Errorf("∇L(0.3, 0.3000000001) = %v (sign bit %v), want +0", g, math.Signbit(g))
	}
	if r := round(math.NaN()); r != 0 {
		t.Errorf("round(NaN) = %v", r)
	}
}
