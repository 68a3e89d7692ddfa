package scripted

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Epoch is the first clock reading of a scenario play; the clock then steps one
// millisecond per event, so a scenario always gives the same trace.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Play runs the GGS loop over the scenario with the rule set rs, writing the trace to
// sink and passing every message to onMessage (which may be nil); opt configures the
// Solver (memory, for instance). It fails when the run
// does not end with the scenario's expected final directive.
func Play(ctx context.Context, sc *Scenario, rs *ruleset.RuleSet, sink trace.Sink, onMessage func(trace.Message), opt ...ggs.Option) (trace.Halt, *contract.FinalResult, error) {
	return play(ctx, sc, rs, sink, onMessage, nil, opt...)
}

// play is Play with observers of the trace as written (the rule timeline).
func play(ctx context.Context, sc *Scenario, rs *ruleset.RuleSet, sink trace.Sink, onMessage func(trace.Message), events []ggsrun.EventObserver, opt ...ggs.Option) (trace.Halt, *contract.FinalResult, error) {
	if onMessage != nil {
		events = append(events, ggsrun.Messages(onMessage))
	}
	run, err := ggsrun.New(ggsrun.Config{Rules: rs, Plant: NewPlant(sc), Task: sc.Task, GGS: opt,
		Trace: sink, Events: events,
		Engine: []engine.Option{
			engine.WithClock(clock.NewStep(Epoch, time.Millisecond)),
			engine.WithRunID(sc.Name),
		},
		Meta: map[string]string{"scenario": sc.Name, "task_id": sc.Task.TaskID, "intent": sc.Task.Intent},
	})
	if err != nil {
		return trace.Halt{}, nil, err
	}
	out, err := run.Run(ctx)
	res, final := out.Result, out.Final
	if err != nil {
		return res, final, err
	}
	if sc.Final != "" {
		got := "(none)"
		if final != nil {
			got = final.Directive
		}
		if got != sc.Final {
			return res, final, fmt.Errorf("scenario %q should end with %s, it ended with %s", sc.Name, sc.Final, got)
		}
	}
	return res, final, nil
}

// Summary is what spine play and spine demo say of a play that has its trace (the
// scenario named name): after a blank line, how it ended, the trace, and the sidecars.
func (o PlayOutcome) Summary(w io.Writer, name string) {
	r := o.Result
	fmt.Fprintln(w)
	termtext.Printf(w, "%s: %s (objective %s) after %d iteration(s), %d rule firing(s)", name, r.Outcome, r.Objective, r.Iterations, r.Firings)
	fmt.Fprintf(w, "trace written to %s\n", o.TracePath)
	if o.Scorecard != "" {
		fmt.Fprintf(w, "scorecard written to %s, candidates to %s\n", o.Scorecard, o.Candidates)
	}
}
