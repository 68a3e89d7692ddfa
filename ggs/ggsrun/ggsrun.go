// Package ggsrun assembles one GGS run: the controller (ggs.Loop over a GGS rule set),
// the plant it steers (the role pipeline, or a stand-in), and the spine engine with the
// Loop as its effector, with the run's observers wired to the engine's journal. It is
// the one place these are put together: taskrun (spine run, demo --pipeline, the fleet
// worker) and the scripted play call it, and the plant never builds its controller.
//
// It owns the assembly only. It must not open files, talk to models or tools, or decide
// anything: the rules decide, the engine records, and the caller supplies the sink, the
// clock and the plant.
package ggsrun

import (
	"context"
	"errors"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// Observer sees every event an effector journals, as the engine's journal tap passes
// it: kind trace.KindMessage with a trace.Message body (its Seq set), or
// trace.KindExchange with an engine.Exchange body, on the effector's goroutine, in
// trace order. It is the one way a run is watched live (a display, the Auditor's bus,
// the fleet's bus); it must not block, and a replay does not call it.
type Observer func(seq int64, kind string, body any)

// Messages is an Observer that passes the messages alone to fn.
func Messages(fn func(trace.Message)) Observer {
	return func(_ int64, kind string, body any) {
		if m, ok := body.(trace.Message); ok && kind == trace.KindMessage {
			fn(m)
		}
	}
}

// EventObserver sees every event of the trace as it was written: engine events
// (cycles, evaluations, reloads, the halt) as well as the effectors' messages and
// exchanges, after Config.Filter rewrote it (taskrun's secret scrubber) and after the
// engine fitted an over-long exchange into its line, so it sees the trace's bytes and
// no more. It is called in trace order under the writer's lock, only for events the
// sink took; it must not block, keep e, or change it.
type EventObserver func(e *trace.Event)

// Observe is a sink that writes to next and then shows each written event to obs: the
// one way a run's trace is watched as it is written. New puts it under Config.Filter;
// a play that does not go through New (a signal scenario) uses it alone.
func Observe(next trace.Sink, obs ...EventObserver) trace.Sink {
	var live []EventObserver
	for _, o := range obs {
		if o != nil {
			live = append(live, o)
		}
	}
	if len(live) == 0 {
		return next
	}
	return &observed{next: next, obs: live}
}

type observed struct {
	next trace.Sink
	obs  []EventObserver
}

func (s *observed) Write(e *trace.Event) error {
	if err := s.next.Write(e); err != nil {
		return err
	}
	for _, o := range s.obs {
		o(e)
	}
	return nil
}

func (s *observed) Flush() error { return s.next.Flush() }

// Config is one run to assemble. Rules, Plant and Task are required.
type Config struct {
	// Rules is a GGS rule set (ggs.CheckRuleSet).
	Rules *engine.RuleSet
	// Plant is what GGS steers; Task is the task it steers it on.
	Plant ggs.Plant
	Task  contract.TaskSpec
	// GGS configures the Loop (memory, caution policy).
	GGS []ggs.Option
	// Engine configures the engine: clock, ids, run id, limits, an epilogue. The trace
	// and Meta are given below instead.
	Engine []engine.Option
	// Trace is where the trace is written; nil: nowhere. Filter, when set, rewrites each
	// event before it reaches Trace and the Events observers (taskrun's secret scrubber).
	Trace  trace.Sink
	Filter func(next trace.Sink) trace.Sink
	// Events watch the trace as it is written (EventObserver); nil entries are skipped.
	Events []EventObserver
	// Meta is the trace header's setup fields.
	Meta map[string]string
	// Observers watch the effectors' messages and exchanges live, as the Go values they
	// journalled (before the trace's encoding): for the Auditor and a display of the
	// messages. What must match the trace's bytes watches Events instead. nil entries
	// are skipped.
	Observers []Observer
}

// Run is an assembled run, ready to start.
type Run struct {
	task contract.TaskSpec
	loop *ggs.Loop
	eng  *engine.Engine
}

// TaskResult is how a task ended.
type TaskResult struct {
	Task   contract.TaskSpec
	Result engine.Result
	// Final is GGS's FinalResult. A run cancelled, at its iteration bound or stopped by
	// an effector's error has one too, decided by a rule with the interruption as its
	// reason; it is nil only when the run could not even reach a rule (an error of the
	// trace, a replay departing from its recording) or the rules chose no ending.
	Final *contract.FinalResult
	// Failure is R2's graceful failure when GGS abandoned the task, as the FinalResult
	// carries it.
	Failure *contract.GracefulFailure
}

// New builds the Loop over cfg.Plant and the engine around it, and seeds the engine's
// session with GGS's round-0 signals.
func New(cfg Config) (*Run, error) {
	if cfg.Rules == nil || cfg.Plant == nil {
		return nil, errors.New("ggsrun: a run needs its rules and its plant")
	}
	loop, err := ggs.NewLoop(cfg.Rules, cfg.Plant, cfg.Task, cfg.GGS...)
	if err != nil {
		return nil, err
	}
	opts := append(append([]engine.Option(nil), cfg.Engine...), engine.WithMeta(cfg.Meta))
	if cfg.Trace != nil {
		sink := Observe(cfg.Trace, cfg.Events...)
		if cfg.Filter != nil {
			sink = cfg.Filter(sink)
		}
		opts = append(opts, engine.WithTrace(sink))
	}
	if tap := fanOut(cfg.Observers); tap != nil {
		opts = append(opts, engine.WithJournalTap(tap))
	}
	eng := engine.NewEngine(cfg.Rules, loop.Effector(), opts...)
	if err := loop.Seed(eng.Session()); err != nil {
		return nil, err
	}
	return &Run{task: cfg.Task, loop: loop, eng: eng}, nil
}

// Run drives the task until a terminal macro-state, the iteration bound, an error or
// the cancelling of ctx (the engine stops at its next state boundary and the trace ends
// with a halt event either way).
func (r *Run) Run(ctx context.Context) (TaskResult, error) {
	res, err := r.eng.Run(ctx)
	out := TaskResult{Task: r.task, Result: res, Final: r.loop.Final}
	if out.Final != nil {
		out.Failure = out.Final.Failure
	}
	return out, err
}

// fanOut is one journal tap for every observer, nil for none.
func fanOut(obs []Observer) func(seq int64, kind string, body any) {
	var live []Observer
	for _, o := range obs {
		if o != nil {
			live = append(live, o)
		}
	}
	switch len(live) {
	case 0:
		return nil
	case 1:
		return live[0]
	}
	return func(seq int64, kind string, body any) {
		for _, o := range live {
			o(seq, kind, body)
		}
	}
}
