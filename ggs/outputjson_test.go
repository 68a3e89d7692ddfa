package ggs

import (
	"bytes"
	"context"
	"encoding/json"
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

// rawCases are outputs as their JSON text: nesting, repeated keys, escapes, numbers.
var rawCases = []string{
	`{"b":[1,{"z":[],"a":{}}],"a":"\u003ctag\u003e \"q\" é","b":[[1]],"c":[[],[{}]]}`,
	`[-0,1e400,0.1,1E+2,-1.5e-7,123456789012345678,true,false,null,"\u2028\ud83d\ude00"]`,
	`{"k\u0065y":1,"key":2,"":{"":""}}`, ` [ 1 , { "a" : null } ] `, `"\/\b\f\n\r\t"`, `{"a":1,"a":{"b":2},"a":[3]}`,
}

// FuzzRawOutputAgrees: an output kept as its JSON text is written as encoding/json
// writes the value it decodes to, whatever the text around it.
func FuzzRawOutputAgrees(f *testing.F) {
	for _, c := range rawCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := reportScan{b: []byte(text)}
		if _, ok := s.anyValue(0, false); !ok {
			return
		}
		if s.ws(); s.i != len(s.b) {
			return
		}
		var v any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("the scan took %q; encoding/json: %v", text, err)
		}
		o := Output{Final: &contract.FinalResult{TaskID: "t", Output: map[string]any{"s": &rawOutput{text: []byte(text)}, "v": []any{&rawOutput{text: []byte(text)}}}}}
		got, ok := appendOutput(nil, o)
		want, err := appendOutputReflect(nil, Output{Final: &contract.FinalResult{TaskID: "t", Output: map[string]any{"s": v, "v": []any{v}}}})
		if !ok || err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%q:\ngot  %s (%v)\nwant %s (%v)", text, got, ok, want, err)
		}
		if marshalled, err := appendOutputReflect(nil, o); err != nil || !bytes.Equal(marshalled, want) {
			t.Fatalf("%q: through MarshalJSON:\ngot  %s (%v)\nwant %s", text, marshalled, err, want)
		}
	})
}
