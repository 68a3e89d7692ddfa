package scenario

import (
	"context"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Epoch is the first clock reading of a scenario play. Plays use a stepping clock (one
// millisecond per event), so the same scenario and rules always give the same trace.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Play runs rs against the scenario with a deterministic clock and the scenario's name as
// run id, writing the trace to sink.
func Play(ctx context.Context, sc *Scenario, rs *ruleset.RuleSet, sink trace.Sink, opt ...engine.Option) (trace.Halt, error) {
	rep, err := Run(ctx, sc, rs, sink, opt...)
	return rep.Result, err
}

// Run is Play that also returns the run's Report, for the scorecard and candidates
// sidecars. The report is never nil; after an error it describes where the run stopped.
func Run(ctx context.Context, sc *Scenario, rs *ruleset.RuleSet, sink trace.Sink, opt ...engine.Option) (*Report, error) {
	opts := append([]engine.Option{
		engine.WithTrace(sink),
		engine.WithClock(clock.NewStep(Epoch, time.Millisecond)),
		engine.WithRunID(sc.Name),
		engine.WithMeta(map[string]string{"scenario": sc.Name}),
	}, opt...)
	eff := NewEffector(sc)
	eng := engine.NewEngine(rs, eff, opts...)
	res, err := eng.Run(ctx)
	return newReport(sc, rs, res, eng.Session(), eff), err
}
