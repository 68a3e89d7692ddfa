package analysis

import (
	"errors"
	"io/fs"
	"math"
	"testing"

	"github.com/agentspine/spine/fixtures"
)

// A partition larger than the bound is refused, not truncated.
func TestTooManyRegions(t *testing.T) {
	_, err := Analyze(shipped(t, "ggs.yaml"), Options{MaxRegions: 3})
	if !errors.Is(err, ErrTooManyRegions) {
		t.Errorf("got %v", err)
	}
}

// If the analysis misread a condition, the engine check of the witnesses says so: here an
// atom is made to lie, and finishing the regions must fail with a DisagreementError.
func TestDisagreementIsAnError(t *testing.T) {
	a, _, err := analyzeWith(shipped(t, "ggs.yaml"), ggsOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range a.sp.atoms {
		if at.text == "signals.omega >= params.theta" {
			test := at.test
			at.test = func(rep any) bool { return !test(rep) }
			at.truth = nil // tabulated from test on first use
		}
	}
	a.leaves = nil
	if err := a.decide(a.sp.fullRegion()); err != nil {
		t.Fatal(err)
	}
	var de *DisagreementError
	for _, g := range a.leaves {
		if err := a.finishLeaf(g); err != nil {
			if !errors.As(err, &de) {
				t.Fatalf("got %v", err)
			}
			return
		}
	}
	t.Fatal("a lying atom went unnoticed")
}

func TestPickNice(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		lo, hi     float64
		loIn, hiIn bool
		integer    bool
		want       float64
		ok         bool
	}{
		{0, 1, true, true, false, 0, true},
		{0.3, 1, false, true, false, 1, true},
		{0.1, 0.2, false, false, false, 0.11, true},
		{-1.3, -0.1, true, false, false, -1, true},
		{-inf, -0.1, false, false, false, -1, true},
		{0.8, inf, false, false, false, 1, true},
		{0, 1000, false, true, true, 1, true},
		{0.2, 0.8, true, true, true, 0, false},
		{2, 2, true, true, false, 2, true},
		{2, 2, false, true, false, 0, false},
	} {
		got, ok := pickNice(tc.lo, tc.hi, tc.loIn, tc.hiIn, tc.integer)
		if got != tc.want || ok != tc.ok {
			t.Errorf("pickNice(%v, %v, %v, %v, %v) = %v, %v; want %v, %v", tc.lo, tc.hi, tc.loIn, tc.hiIn, tc.integer, got, ok, tc.want, tc.ok)
		}
	}
}

func BenchmarkAnalyzeGGS(b *testing.B) {
	rs := shipped(b, "ggs.yaml")
	opt := ggsOptions(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Analyze(rs, opt); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWhatIf(b *testing.B) {
	rs := shipped(b, "ggs.yaml")
	trace, err := fs.ReadFile(fixtures.FS, "ggs/refine_then_accept.trace.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	rec := recordingTB(b, "refine_then_accept.trace.jsonl", trace)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := WhatIf(rec, rs); err != nil {
			b.Fatal(err)
		}
	}
}
