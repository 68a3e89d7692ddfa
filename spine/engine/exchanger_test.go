package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// fakeExchanger stands in for the whole world outside the engine: it serves scripted
// results without an effector, counts its clock readings and notes every call it is
// asked to make, so a test sees that the engine goes through it and nowhere else.
type fakeExchanger struct {
	start    time.Time
	readings int
	ops      []string
	scores   []float64 // the gate's score per gate call
	gates    int
	stopAt   int64
	callErr  error // returned by the first exchange
	stop     error // returned by the first exchange
}

func (x *fakeExchanger) Now() time.Time {
	x.readings++
	return x.start.Add(time.Duration(x.readings) * time.Second)
}

func (x *fakeExchanger) NewID() string                { return "fake-run" }
func (x *fakeExchanger) StopAt() int64                { return x.stopAt }
func (x *fakeExchanger) Makes(int, string, bool) bool { return false }
func (x *fakeExchanger) PollRules(Tape) (bool, error) { return false, nil }

func (x *fakeExchanger) Epilogue(t Tape) error {
	t.Write("fake_epilogue", map[string]int64{"seq": t.Next()})
	return nil
}

func (x *fakeExchanger) Exchange(_ context.Context, t Tape, c tr.EffectorCall, invoke Invoke, into any) (error, error) {
	x.ops = append(x.ops, fmt.Sprintf("%d %s live=%t", c.Call, c.Op, invoke != nil))
	if x.callErr != nil || x.stop != nil {
		return x.callErr, x.stop
	}
	t.Write(tr.KindEffectorCall, c)
	t.Write(tr.KindEffectorResult, tr.EffectorResult{Call: c.Call, Op: c.Op})
	var v any
	switch c.Op {
	case "mint":
		v = Construct{ID: fmt.Sprintf("c%d", c.Call)}
	case "gate":
		v = Signals{Changes: []Change{{Op: ChangePut, Kind: "score", Fields: ruleset.Fields{"value": x.scores[x.gates], "round": x.gates + 1}}}}
		x.gates++
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err, nil
	}
	return json.Unmarshal(b, into), nil
}

// TestExchangerIsTheEnginesOnlyDoor runs the engine without an effector on a fake
// exchanger: every effector call goes to it, every timestamp and the run id come from
// it, its cancellation point stops the run, and its two kinds of error end the run
// differently (the call's failure is the effector's, a stop is returned as it is).
func TestExchangerIsTheEnginesOnlyDoor(t *testing.T) {
	stopErr := errors.New("the run departed")
	for _, tc := range []struct {
		name    string
		x       fakeExchanger
		outcome string
		err     string
		ops     string
	}{
		{name: "served", x: fakeExchanger{scores: []float64{0.5, 0.9}},
			outcome: OutcomeSuccess, ops: "1 mint live=false, 2 gate live=false, 3 mint live=false, 4 gate live=false"},
		{name: "call_error", x: fakeExchanger{callErr: errors.New("no model")},
			outcome: OutcomeError, err: "effector mint (iteration 1, objective work): no model", ops: "1 mint live=false"},
		{name: "stop", x: fakeExchanger{stop: stopErr},
			outcome: OutcomeError, err: "the run departed", ops: "1 mint live=false"},
		{name: "stop_at", x: fakeExchanger{scores: []float64{0.5, 0.9}, stopAt: 22},
			outcome: OutcomeCanceled, err: "context canceled", ops: "1 mint live=false, 2 gate live=false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := tc.x
			x.start = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
			sink := &tr.MemorySink{}
			eng := NewEngine(loadEngineRules(t), nil, WithExchanger(&x), WithTrace(sink))
			res, err := eng.Run(context.Background())
			if res.Outcome != tc.outcome {
				t.Errorf("outcome %q, want %q", res.Outcome, tc.outcome)
			}
			if got := fmt.Sprint(err); (tc.err == "" && err != nil) || (tc.err != "" && got != tc.err) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if tc.name == "stop" && !errors.Is(err, stopErr) {
				t.Errorf("a stop is returned as it is, got %v", err)
			}
			if got := strings.Join(x.ops, ", "); got != tc.ops {
				t.Errorf("exchanges %q, want %q", got, tc.ops)
			}
			f, rerr := tr.Read("fake", strings.NewReader(string(sink.Bytes())))
			if rerr != nil {
				t.Fatal(rerr)
			}
			if h, ok := f.Header(); !ok || h.Run != "fake-run" {
				t.Errorf("header run %q, want the exchanger's id", h.Run)
			}
			if len(f.Events) != x.readings {
				t.Errorf("%d events from %d clock readings: every event takes one", len(f.Events), x.readings)
			}
			for i, e := range f.Events {
				if want := x.start.Add(time.Duration(i+1) * time.Second); !e.Time.Equal(want) {
					t.Fatalf("event %d (%s) at %v, want the exchanger's reading %v", e.Seq, e.Kind, e.Time, want)
				}
			}
			if last := f.Events[len(f.Events)-1]; last.Kind != "fake_epilogue" {
				t.Errorf("the trace ends with %s, want the exchanger's epilogue", last.Kind)
			}
			if tc.x.stopAt > 0 {
				if halt := f.Events[len(f.Events)-2]; halt.Seq != tc.x.stopAt || halt.Kind != tr.KindHalt {
					t.Errorf("seq %d is %s, want the halt where the exchanger stops the run", halt.Seq, halt.Kind)
				}
			}
		})
	}
}
