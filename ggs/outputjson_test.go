package ggs

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/agentspine/spine/contract"
)

// outputsOf runs the golden stream through a Solver and returns every output.
func outputsOf(t *testing.T) []Output {
	s := newSolver(t)
	var outs []Output
	var d messageDecoder
	for _, l := range bytes.Split(goldenStream(t), []byte("\n")) {
		m, err := d.decode(bytes.TrimSpace(l))
		if err != nil {
			continue
		}
		if o, err := s.Handle(context.Background(), m); err == nil {
			outs = append(outs, o)
		}
	}
	return outs
}

// The writer without reflection writes what encoding/json writes, and leaves to it what
// it does not write.
func TestAppendOutputAgrees(t *testing.T) {
	outs := outputsOf(t)
	outs = append(outs,
		Output{},
		Output{Directive: &contract.PlanDirective{TaskID: "t\x00\u2029\xff", GradL: 1e-7, BudgetPressure: -1e21, BlockedTools: []string{}}},
		Output{Final: &contract.FinalResult{TaskID: "t", Output: map[string]any{"b": []any{nil, 1.5, "<&>"}, "a": map[string]any(nil), "c": []any(nil)}, Reason: "cancelled"}},
		Output{Final: &contract.FinalResult{TaskID: "t", Output: contract.Fault{Role: "R3"}}},
		Output{Final: &contract.FinalResult{TaskID: "t", Failure: &contract.GracefulFailure{TaskID: "t"}}},
		Output{Directive: &contract.PlanDirective{TaskID: "t", GradL: math.NaN()}},
	)
	fast := 0
	for _, o := range outs {
		want, werr := appendOutputReflect([]byte("x"), o)
		got, gerr := AppendOutput([]byte("x"), o)
		if !bytes.Equal(got, want) || errText(gerr) != errText(werr) {
			t.Errorf("got  %s (%v)\nwant %s (%v)", got, gerr, want, werr)
		}
		if _, ok := appendOutput(nil, o); ok {
			fast++
		}
	}
	if fast < len(outs)-3 {
		t.Errorf("%d of %d outputs written without reflection; want all but 3", fast, len(outs))
	}
}

func FuzzAppendOutputAgrees(f *testing.F) {
	f.Add("task", 0.5, "")
	f.Add("\x00\"\\\u2028\xff é <&>", 1e-7, "k")
	f.Add("", -1e21, "\x7f")
	f.Add("a", 123456789012345678.0, "b")
	f.Fuzz(func(t *testing.T, s string, x float64, k string) {
		for _, o := range []Output{
			{Directive: &contract.PlanDirective{TaskID: s, Rationale: k, BlockedTargets: []string{s, k}, GradL: x, Loss: contract.Loss{D: x, L: -x}}},
			{Final: &contract.FinalResult{TaskID: k, Summary: s, GradL: x, Output: map[string]any{s: []any{x, k, true, nil}, k: x}}},
		} {
			got, ok := appendOutput(nil, o)
			if !ok {
				continue
			}
			want, err := appendOutputReflect(nil, o)
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("got  %s\nwant %s (%v)", got, want, err)
			}
		}
	})
}
