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

// interrupting is a test double whose rules decide how an interrupted run ends: it
// cancels the run, or fails, when its mint or gate call n begins.
type interrupting struct {
	cancel     context.CancelFunc
	cancelMint int  // cancel when this mint begins
	cancelErr  bool // and return the cancellation as the mint's error
	failGate   int  // fail when this gate begins

	mints, gates int
	interrupts   []InterruptRequest
	finishes     []FinishRequest
}

func (f *interrupting) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	f.mints++
	if f.mints == f.cancelMint {
		f.cancel()
		if f.cancelErr {
			return Construct{}, fmt.Errorf("the model call: %w", ctx.Err())
		}
	}
	return Construct{ID: fmt.Sprintf("c%d", f.mints)}, nil
}

func (f *interrupting) Gate(ctx context.Context, r GateRequest) (Signals, error) {
	f.gates++
	if f.gates == f.failGate {
		return Signals{}, errors.New("the judge is unreachable")
	}
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "score", Fields: ruleset.Fields{"value": float64(f.gates) / 10}}}}, nil
}

func (f *interrupting) Interrupt(ctx context.Context, r InterruptRequest) (Signals, error) {
	if ctx.Err() != nil {
		return Signals{}, errors.New("Interrupt got a cancelled context")
	}
	f.interrupts = append(f.interrupts, r)
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "stop", Fields: ruleset.Fields{"reason": r.Reason}}}}, nil
}

func (f *interrupting) Finish(ctx context.Context, r FinishRequest) (Construct, error) {
	f.finishes = append(f.finishes, r)
	return Construct{ID: "final"}, nil
}

const interruptRules = `
name: interrupt
facts:
  score: {fields: {value: float}}
  stop: {fields: {reason: string}}
objectives: [{name: work}, {name: done, terminal: success}, {name: given_up, terminal: failure}]
rules:
  - {name: start, salience: 1, when: 'score == nil', then: {objective: work}}
  - {name: again, salience: 1, when: 'score != nil && score.value < 1', then: {objective: work}}
  - {name: enough, salience: 9, when: 'score != nil && score.value >= 1', then: {objective: done}}
  - {name: give_up, salience: 50, when: 'stop != nil', then: {objective: given_up}}
`

// TestInterruptedRunsEndByRule: a run cancelled at a state boundary or inside an
// effector call, one at its iteration bound and one whose gate fails all end with the
// Interrupter's rules choosing a terminal objective and Finish called once; the run's
// outcome stays the interruption's, and each trace replays byte for byte.
func TestInterruptedRunsEndByRule(t *testing.T) {
	rs, err := LoadRules("interrupt.yaml", []byte(interruptRules))
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name    string
		eff     interrupting
		maxIter int
		outcome string
		reason  string
		detail  string
	}{
		{name: "cancelled at a boundary", eff: interrupting{cancelMint: 2}, maxIter: 10,
			outcome: OutcomeCanceled, reason: InterruptCancelled, detail: "context canceled"},
		{name: "cancelled inside a call", eff: interrupting{cancelMint: 3, cancelErr: true}, maxIter: 10,
			outcome: OutcomeCanceled, reason: InterruptCancelled, detail: "effector mint (iteration 3, objective work): the model call: context canceled"},
		{name: "iteration bound", maxIter: 3,
			outcome: OutcomeMaxIterations, reason: InterruptIterationBound, detail: "reached the bound of 3 iterations"},
		{name: "effector error", eff: interrupting{failGate: 2}, maxIter: 10,
			outcome: OutcomeError, reason: InterruptEffectorError, detail: "effector gate (iteration 2, objective work): the judge is unreachable"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			eff := c.eff
			eff.cancel = cancel
			sink := &trace.MemorySink{}
			res, err := NewEngine(rs, &eff, WithTrace(sink), WithMaxIterations(c.maxIter)).Run(ctx)
			if res.Outcome != c.outcome || res.Objective != "given_up" {
				t.Fatalf("outcome %s objective %s, want %s given_up (err %v)", res.Outcome, res.Objective, c.outcome, err)
			}
			if (err == nil) != (c.outcome == OutcomeMaxIterations) {
				t.Errorf("err %v", err)
			}
			if len(eff.interrupts) != 1 || eff.interrupts[0].Reason != c.reason || eff.interrupts[0].Detail != c.detail {
				t.Fatalf("interrupt calls %+v, want one with reason %s detail %q", eff.interrupts, c.reason, c.detail)
			}
			if len(eff.finishes) != 1 || eff.finishes[0].Objective != "given_up" || eff.finishes[0].Rule != "give_up" || eff.finishes[0].Outcome != OutcomeFailure {
				t.Fatalf("finish calls %+v", eff.finishes)
			}
			recorded := sink.Bytes()
			for _, want := range []string{`"op":"interrupt"`, `"reason":"` + c.reason + `"`, `"op":"finish"`} {
				if !strings.Contains(string(recorded), want) {
					t.Errorf("the trace lacks %s", want)
				}
			}
			if c.outcome != OutcomeMaxIterations && !strings.Contains(string(recorded), `"event":"interrupted"`) {
				t.Error("the trace lacks the interrupted transition")
			}
			assertReplays(t, recorded, rs)
		})
	}
}

// TestInterruptNeedsAnInterrupter: an effector that is not an Interrupter ends an
// interrupted run as before, without a Finish call.
func TestInterruptNeedsAnInterrupter(t *testing.T) {
	rs, err := LoadRules("interrupt.yaml", []byte(interruptRules))
	if err != nil {
		t.Fatal(err)
	}
	eff := &interrupting{}
	sink := &trace.MemorySink{}
	res, err := NewEngine(rs, plainEffector{eff}, WithTrace(sink), WithMaxIterations(2)).Run(context.Background())
	if err != nil || res.Outcome != OutcomeMaxIterations || res.Objective != "work" || len(eff.interrupts)+len(eff.finishes) != 0 {
		t.Fatalf("%+v %v, interrupts %v finishes %v", res, err, eff.interrupts, eff.finishes)
	}
	if strings.Contains(string(sink.Bytes()), `"op":"interrupt"`) {
		t.Error("an interrupt call without an Interrupter")
	}
}

// plainEffector hides every optional extension of the effector it wraps.
type plainEffector struct{ e Effector }

func (p plainEffector) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	return p.e.Mint(ctx, r)
}
func (p plainEffector) Gate(ctx context.Context, r GateRequest) (Signals, error) {
	return p.e.Gate(ctx, r)
}
