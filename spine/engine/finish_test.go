package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// finishing is a test double that ends its run with a final construct.
type finishing struct {
	finishes []FinishRequest
}

func (f *finishing) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	JournalFrom(ctx).Record(Exchange{Name: "tool:echo", Request: r.Objective, Response: "ok", DurationMS: 0})
	return Construct{ID: "c"}, nil
}

func (f *finishing) Gate(ctx context.Context, r GateRequest) (Signals, error) {
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "score", Fields: ruleset.Fields{"value": 1.0}}}}, nil
}

func (f *finishing) Finish(ctx context.Context, r FinishRequest) (Construct, error) {
	f.finishes = append(f.finishes, r)
	body, _ := json.Marshal(map[string]string{"summary": "done by " + r.Rule})
	return Construct{ID: "final", Body: body}, nil
}

const finishRules = `
name: finish
facts: {score: {fields: {value: float}}}
objectives: [{name: work}, {name: done, terminal: success}]
rules:
  - {name: start, salience: 1, when: 'score == nil', then: {objective: work}}
  - {name: enough, salience: 9, when: 'score != nil && score.value >= 1', then: {objective: done}}
`

func TestFinisherIsCalledOnceAndReplayed(t *testing.T) {
	rs, err := LoadRules("finish.yaml", []byte(finishRules))
	if err != nil {
		t.Fatal(err)
	}
	eff := &finishing{}
	sink := &trace.MemorySink{}
	res, err := NewEngine(rs, eff, WithTrace(sink)).Run(context.Background())
	if err != nil || res.Outcome != OutcomeSuccess {
		t.Fatalf("%+v %v", res, err)
	}
	if len(eff.finishes) != 1 || eff.finishes[0] != (FinishRequest{Iteration: 1, Objective: "done", Rule: "enough", Outcome: OutcomeSuccess}) {
		t.Fatalf("finish calls: %+v", eff.finishes)
	}
	trace := sink.Bytes()
	for _, want := range []string{
		`"kind":"exchange","name":"tool:echo","request":"work","response":"ok","duration_ms":0`,
		`"kind":"effector_call","call":3,"op":"finish"`,
		`"result":{"id":"final","body":{"summary":"done by enough"}}`,
	} {
		if !strings.Contains(string(trace), want) {
			t.Errorf("trace lacks %s", want)
		}
	}
	assertReplays(t, trace, rs)
}
