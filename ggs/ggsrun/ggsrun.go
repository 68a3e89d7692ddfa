// Package ggsrun assembles one GGS run: the controller (ggs.Loop over a GGS rule set),
// the plant it steers (the role pipeline, or a stand-in), and the spine engine with the
// Loop as its effector, with the run's observers on its trace as written. It is
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
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// EventObserver sees every event of the trace as it was written: engine events
// (cycles, evaluations, reloads, the halt) as well as the effectors' messages and
// exchanges, after Config.Filter rewrote it (taskrun's secret scrubber) and after the
// engine fitted an over-long exchange into its line, so it sees the trace's content and
// no more. It is the one way a run is watched live: a display, the Auditor's bus, the
// fleet's bus, the rule timeline. It is called in trace order under the writer's lock,
// only for events the sink took; it must not block, keep e, or change it. A replay does
// not go through New, and calls none.
type EventObserver func(e *trace.Event)

// Messages is an EventObserver that passes the message events alone to fn, each with
// its trace seq and its content as the trace holds it.
func Messages(fn func(trace.Message)) EventObserver {
	var buf []byte
	return func(e *trace.Event) {
		if m, ok := BusMessage(e, &buf); ok {
			fn(m)
		}
	}
}

// BusMessage is the message a message event holds, with its seq, as the trace holds
// it: the effector's own value, or, when a filter rewrote the body, the body read back
// as a reader of the trace reads it. buf is scratch space for that reading. ok is false
// for any other event.
func BusMessage(e *trace.Event, buf *[]byte) (m trace.Message, ok bool) {
	if e.Kind != trace.KindMessage {
		return m, false
	}
	if m, ok = e.Body.(trace.Message); !ok {
		var err error
		if *buf, err = e.AppendJSON((*buf)[:0]); err != nil {
			return m, false
		}
		body, err := trace.DecodeBody(e.Kind, *buf)
		if m, ok = body.(trace.Message); err != nil || !ok {
			return m, false
		}
	}
	m.Seq = e.Seq
	return m, true
}

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
	Rules *ruleset.RuleSet
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
	Result trace.Halt
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
