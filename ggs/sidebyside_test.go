package ggs_test

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
)

// sideBySideN is how many random rounds the side-by-side harness decides per pass.
const sideBySideN = 100_000

// randomSignals are n rounds drawn from a fixed seed over every branch of the decision:
// the planning round, verified results, faults, Law 2, the budget, and values on a grid
// of 0.01 so that signals land on the thresholds as well as beside them.
func randomSignals(n int) []ggs.Signals {
	r := rand.New(rand.NewPCG(30, 1))
	grid := func(lo, hi float64) float64 { return lo + float64(r.IntN(int((hi-lo)*100)+1))/100 }
	out := make([]ggs.Signals, n)
	for i := range out {
		s := &out[i]
		s.Round = r.IntN(4)
		s.D, s.P, s.Omega = grid(0, 1), grid(0, 1), grid(0, 1)
		s.BetaEff, s.L, s.Grad = grid(0, 1), grid(0, 1.3), grid(-1.3, 1.3)
		s.Worsening, s.Replans = r.IntN(3), r.IntN(5)
		s.AllMatched = r.IntN(10) == 0
		if r.IntN(5) == 0 {
			s.Fault = 1 + r.IntN(2)
		}
	}
	return out
}

func sideBySide(tb testing.TB) (*ggs.RulesDecider, ggs.Params, []ggs.Signals) {
	tb.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := ggs.ParamsFrom(rs)
	if err != nil {
		tb.Fatal(err)
	}
	d, err := ggs.NewRulesDecider(rs)
	if err != nil {
		tb.Fatal(err)
	}
	return d, p, randomSignals(sideBySideN)
}

// TestSideBySideAgrees is the harness's premise: on every random round the rules and
// the switch decide alike.
func TestSideBySideAgrees(t *testing.T) {
	d, p, sigs := sideBySide(t)
	ctx := context.Background()
	seen := map[string]int{}
	for i, s := range sigs {
		dec, err := d.Decide(ctx, s)
		if err != nil {
			t.Fatalf("round %d %+v: %v", i, s, err)
		}
		if want := ggs.DecideHandCoded(p, s); dec.Directive != want {
			t.Fatalf("round %d %+v: rules decided %s (%s), the switch %s", i, s, dec.Directive, dec.Rule, want)
		}
		seen[dec.Directive]++
	}
	if len(seen) < 8 {
		t.Errorf("the random rounds reach only %v", seen)
	}
}

// BenchmarkGGSSideBySide decides the same 100,000 random rounds through the public API
// (NewRulesDecider(...).Decide) and through the hand-written switch, in alternating
// blocks of 1,000, so that a busy machine slows both alike. It reports each one's
// ns per decision and the median of the blocks' ratios (spine/switch); one op is a
// pass over every round with both.
func BenchmarkGGSSideBySide(b *testing.B) {
	d, p, sigs := sideBySide(b)
	ctx := context.Background()
	const block = 1000
	ratios := make([]float64, 0, b.N*len(sigs)/block)
	var spine, floor time.Duration
	sink := 0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		for lo := 0; lo < len(sigs); lo += block {
			part := sigs[lo : lo+block]
			t0 := time.Now()
			for i := range part {
				sink += len(ggs.DecideHandCoded(p, part[i]))
			}
			t1 := time.Now()
			for i := range part {
				dec, err := d.Decide(ctx, part[i])
				if err != nil {
					b.Fatal(err)
				}
				sink += len(dec.Directive)
			}
			t2 := time.Now()
			floor, spine = floor+t1.Sub(t0), spine+t2.Sub(t1)
			ratios = append(ratios, float64(t2.Sub(t1))/float64(max(t1.Sub(t0), 1)))
		}
	}
	b.StopTimer()
	if sink == 0 {
		b.Fatal("no decisions")
	}
	sort.Float64s(ratios)
	n := float64(b.N * len(sigs))
	b.ReportMetric(float64(spine.Nanoseconds())/n, "spine-ns/decision")
	b.ReportMetric(float64(floor.Nanoseconds())/n, "switch-ns/decision")
	b.ReportMetric(ratios[len(ratios)/2], "median-ratio")
}
