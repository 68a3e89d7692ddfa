package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Reasons a run is interrupted: stopped from outside its rules.
const (
	InterruptCancelled      = "cancelled"       // the context was cancelled
	InterruptIterationBound = "iteration_bound" // the iteration bound was reached
	InterruptEffectorError  = "effector_error"  // an effector call failed
)

// Interrupter is an optional extension of Effector for hosts whose rules must decide
// every ending. When a run is stopped from outside its rules — its context cancelled, the
// iteration bound reached, an effector call failed — the engine calls Interrupt once,
// with a context that is no longer cancelled, applies the signals it returns as facts,
// moves to terminate_or_iterate and runs one agenda cycle over the terminal rules; when
// that cycle sets a terminal objective, a Finisher gets its Finish call. The call is
// journalled like Mint and Gate, and the recorded one marks where a replay is cancelled.
// The run's outcome stays the interruption's (canceled, max_iterations, error).
type Interrupter interface {
	Interrupt(ctx context.Context, req InterruptRequest) (Signals, error)
}

// InterruptRequest tells an Interrupter why the run stopped.
type InterruptRequest struct {
	Iteration int    `json:"iteration"`
	Objective string `json:"objective"`
	Reason    string `json:"reason"` // one of the Interrupt… reasons
	Detail    string `json:"detail"` // what happened, for people
}

// EffectorError is an effector call that failed: the effector's own error, with where
// the engine made the call.
type EffectorError struct {
	Op    string // observe, mint, gate, interrupt or finish
	Where string // e.g. "iteration 2, objective plan"
	Err   error
}

func (e *EffectorError) Error() string {
	return fmt.Sprintf("effector %s (%s): %v", e.Op, e.Where, e.Err)
}
func (e *EffectorError) Unwrap() error { return e.Err }

// interruption names why the loop's end is an interruption, "" when it is not one: a
// terminal objective, no rule to fire, or an error of the engine itself (the trace, a
// runaway, a replay departing from its recording) ends the run as it is.
func interruption(res trace.Halt, err error) (reason, detail string) {
	switch res.Outcome {
	case OutcomeCanceled:
		if err != nil {
			detail = err.Error()
		}
		return InterruptCancelled, detail
	case OutcomeMaxIterations:
		return InterruptIterationBound, res.Reason
	case OutcomeError:
		if _, ok := errors.AsType[*EffectorError](err); ok {
			return InterruptEffectorError, err.Error()
		}
	}
	return "", ""
}

// interrupt lets an Interrupter's rules end an interrupted run: see Interrupter. A
// failure on the way is joined to the run's error and makes the outcome error.
func (e *Engine) interrupt(ctx context.Context, res trace.Halt, err error) (trace.Halt, error) {
	if e.finishing {
		return res, err // Finish was called: the rules have decided already
	}
	reason, detail := interruption(res, err)
	if reason == "" {
		return res, err
	}
	in, ok := e.eff.(Interrupter)
	if !e.sess.x.Makes(e.calls+1, "interrupt", ok) {
		return res, err
	}
	// The run is over whatever ctx says now; what remains is deciding how it ended.
	ctx = context.WithoutCancel(ctx)
	req := InterruptRequest{Iteration: e.iteration, Objective: e.sess.Objective(), Reason: reason, Detail: detail}
	var call func(context.Context, InterruptRequest) (Signals, error)
	if ok {
		call = in.Interrupt
	}
	fail := func(ierr error) (trace.Halt, error) {
		res.Outcome = OutcomeError
		return res, errors.Join(err, ierr)
	}
	sig, ierr := exchange(ctx, e, "interrupt", req, call, "reason "+reason)
	if ierr := e.apply("interrupt", sig, ierr); ierr != nil {
		return fail(ierr)
	}
	if e.fsm.Current() != ruleset.StateTerminate {
		e.transition(ctx, evInterrupted)
	}
	if _, cerr := e.sess.runCycle(ctx, true); cerr != nil {
		return fail(cerr)
	}
	if r, done := e.terminal(); done {
		if _, ferr := e.finish(ctx, r); ferr != nil {
			return fail(ferr)
		}
	}
	return res, err
}
