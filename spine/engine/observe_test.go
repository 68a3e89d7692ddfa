package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// observingEffector is a test double for the control plane: its gate scores each
// iteration's construct from a script, and as an Observer it judges the seed and then
// the current construct again, with the verdict the gate gave it.
type observingEffector struct {
	scores  []float64 // gate score per iteration
	calls   []string
	verdict map[string]float64
	fail    error // returned by Observe when set
}

func (e *observingEffector) Mint(ctx context.Context, req MintRequest) (Construct, error) {
	e.calls = append(e.calls, fmt.Sprintf("mint %d %s", req.Iteration, req.Objective))
	return Construct{ID: fmt.Sprintf("construct-%d", req.Iteration)}, nil
}

func (e *observingEffector) Gate(ctx context.Context, req GateRequest) (Signals, error) {
	e.calls = append(e.calls, fmt.Sprintf("gate %d %s", req.Iteration, req.Construct.ID))
	v := e.scores[req.Iteration-1]
	e.verdict[req.Construct.ID] = v
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "sig", Fields: ruleset.Fields{"value": v, "judged": "gate"}}}}, nil
}

func (e *observingEffector) Observe(ctx context.Context, req ObserveRequest) (Signals, error) {
	if e.fail != nil {
		return Signals{}, e.fail
	}
	if req.Construct == nil {
		e.calls = append(e.calls, fmt.Sprintf("observe %d seed", req.Iteration))
		return Signals{Changes: []Change{{Op: ChangePut, Kind: "sig", Fields: ruleset.Fields{"value": 0.1, "judged": "seed"}}}}, nil
	}
	e.calls = append(e.calls, fmt.Sprintf("observe %d %s", req.Iteration, req.Construct.ID))
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "sig", Fields: ruleset.Fields{"value": e.verdict[req.Construct.ID], "judged": req.Construct.ID}}}}, nil
}

const observeRules = `facts:
  sig:
    fields: {value: float, judged: string}
objectives:
  - name: improve
    score: "sig == nil ? 0 : sig.value"
    satisfied: sig != nil && sig.value >= 0.9
  - {name: accept, terminal: success}
rules:
  - {name: accept, salience: 10, when: objectives.improve.satisfied, then: {objective: accept}}
  - {name: work, salience: 1, when: objectives.improve.score < 0.9, then: {objective: improve}}
`

// observe gates the seed before the first construct and the current construct after,
// and its signals are facts before the rules run; the run replays byte for byte.
func TestObserveGatesSeedThenConstruct(t *testing.T) {
	rs, err := LoadRules("o.yaml", []byte(observeRules))
	if err != nil {
		t.Fatal(err)
	}
	eff := &observingEffector{scores: []float64{0.5, 0.95}, verdict: map[string]float64{}}
	sink := &trace.MemorySink{}
	res, err := NewEngine(rs, eff, WithTrace(sink), WithRunID("observe")).Run(context.Background())
	if err != nil || res.Outcome != OutcomeSuccess || res.Iterations != 2 {
		t.Fatalf("result %+v, %v", res, err)
	}
	want := "observe 1 seed|mint 1 improve|gate 1 construct-1|observe 2 construct-1|mint 2 improve|gate 2 construct-2"
	if got := strings.Join(eff.calls, "|"); got != want {
		t.Errorf("calls\n got %s\nwant %s", got, want)
	}
	trace := string(sink.Bytes())
	for _, frag := range []string{
		`"op":"observe","request_hash":"sha256:`,
		`"request":{"iteration":1},"h"`,
		`"request":{"iteration":2,"construct":{"id":"construct-1"}},"h"`,
		`"payload":{"value":0.1,"judged":"seed"}`,
		`"payload":{"value":0.5,"judged":"construct-1"}`,
		`"objectives":[{"objective":"improve","score":0.1,"satisfied":false}]`,
		`"objectives":[{"objective":"improve","score":0.95,"satisfied":true}]`,
	} {
		if !strings.Contains(trace, frag) {
			t.Errorf("the trace lacks %s", frag)
		}
	}
	assertReplays(t, sink.Bytes(), rs)
}

// An Observer's error stops the run like a gate's, naming the call.
func TestObserveError(t *testing.T) {
	rs, err := LoadRules("o.yaml", []byte(observeRules))
	if err != nil {
		t.Fatal(err)
	}
	eff := &observingEffector{fail: errors.New("membrane offline"), verdict: map[string]float64{}}
	res, err := NewEngine(rs, eff).Run(context.Background())
	if res.Outcome != OutcomeError || err == nil || err.Error() != "effector observe (iteration 1): membrane offline" {
		t.Errorf("result %+v, %v", res, err)
	}
}
