package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/looplab/fsm"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// FSM states of the engine loop; a rule's then.transition may name the two that
// package ruleset declares.
const (
	StateSelect   = "select_objective"
	StateAct      = "act"
	StateEvaluate = "evaluate"
)

// FSM events. Each names the step that just finished.
const (
	evObserved  = "observed"  // observe → select_objective
	evSelected  = "selected"  // select_objective → act
	evSkipAct   = "skip_act"  // select_objective → terminate_or_iterate (terminal objective or rule request)
	evReobserve = "reobserve" // select_objective → observe (rule request)
	evActed     = "acted"     // act → evaluate
	evEvaluated = "evaluated" // evaluate → terminate_or_iterate
	evIterate   = "iterate"   // terminate_or_iterate → observe
	// interrupted: any other state → terminate_or_iterate, when an Interrupter's rules
	// decide how a run stopped from outside them ends.
	evInterrupted = "interrupted"
)

// Outcomes of a run.
const (
	OutcomeSuccess       = "success"        // a terminal objective with terminal: success
	OutcomeFailure       = "failure"        // a terminal objective with terminal: failure
	OutcomeMaxIterations = "max_iterations" // the iteration bound was reached
	OutcomeNoRule        = "no_rule"        // select_objective found no rule to fire
	OutcomeCanceled      = "canceled"       // the context was canceled
	OutcomeError         = "error"          // an effector, trace or runaway error
)

// Engine drives a Session through observe → select_objective → act → evaluate →
// terminate_or_iterate with an Effector at the edge. See the package documentation for
// the loop.
type Engine struct {
	sess      *Session
	eff       Effector
	fsm       *fsm.FSM
	iteration int
	construct Construct
	calls     int
	finishing bool  // Finish was called: no interruption follows
	reloadErr error // the last failed reload, cleared by a good one
}

// ReloadError is the error of the last rule reload that failed, nil when the last one
// succeeded or there was none. The running rule set is unchanged by a failed reload.
func (e *Engine) ReloadError() error { return e.reloadErr }

// NewEngine returns an engine over a fresh session. It writes the trace header.
func NewEngine(rs *ruleset.RuleSet, eff Effector, opt ...Option) *Engine {
	e := &Engine{sess: NewSession(rs, opt...), eff: eff}
	e.fsm = fsm.NewFSM(ruleset.StateObserve, fsm.Events{
		{Name: evObserved, Src: []string{ruleset.StateObserve}, Dst: StateSelect},
		{Name: evSelected, Src: []string{StateSelect}, Dst: StateAct},
		{Name: evSkipAct, Src: []string{StateSelect}, Dst: ruleset.StateTerminate},
		{Name: evReobserve, Src: []string{StateSelect}, Dst: ruleset.StateObserve},
		{Name: evActed, Src: []string{StateAct}, Dst: StateEvaluate},
		{Name: evEvaluated, Src: []string{StateEvaluate}, Dst: ruleset.StateTerminate},
		{Name: evIterate, Src: []string{ruleset.StateTerminate}, Dst: ruleset.StateObserve},
		{Name: evInterrupted, Src: []string{ruleset.StateObserve, StateSelect, StateAct, StateEvaluate}, Dst: ruleset.StateTerminate},
	}, nil)
	return e
}

// Session returns the engine's session, for seeding facts before Run and reading them
// after.
func (e *Engine) Session() *Session { return e.sess }

// Run drives the loop until a terminal objective, the iteration bound, a cancelled
// context or an error; an effector that is an Interrupter then has its rules decide how
// an interrupted run ends (see Interrupter). The trace is flushed at every cycle
// boundary and when Run returns.
func (e *Engine) Run(ctx context.Context) (trace.Halt, error) {
	s := e.sess
	res, err := e.loop(ctx)
	res, err = e.interrupt(ctx, res, err)
	res.Run = s.RunID()
	res.Iterations = e.iteration
	res.Firings = s.nFirings
	res.Objective = s.Objective()
	body := res
	if err != nil && body.Reason == "" {
		body.Reason = err.Error()
	}
	s.tracer.emit(trace.KindHalt, body)
	if eerr := s.x.Epilogue(tape{s}); eerr != nil && err == nil {
		err, res.Outcome = eerr, OutcomeError
	}
	if ferr := s.Flush(); ferr != nil && err == nil {
		err = ferr
		res.Outcome = OutcomeError
	}
	return res, err
}

func (e *Engine) loop(ctx context.Context) (trace.Halt, error) {
	s := e.sess
	e.iteration = 1
	s.setState(ruleset.StateObserve, e.iteration)
	for {
		if err := s.canceled(ctx); err != nil {
			return trace.Halt{Outcome: OutcomeCanceled}, err
		}
		if err := s.Err(); err != nil {
			return trace.Halt{Outcome: OutcomeError}, err
		}
		switch e.fsm.Current() {
		case ruleset.StateObserve:
			if err := e.observe(ctx); err != nil {
				return e.failed(err)
			}
			e.transition(ctx, evObserved)
		case StateSelect:
			e.pollRules()
			cyc, err := s.runCycle(ctx, false)
			if err != nil {
				return e.failed(err)
			}
			obj, _ := s.rs.Objective(s.Objective())
			switch {
			case cyc.Fired == "":
				return trace.Halt{Outcome: OutcomeNoRule, Reason: "no rule in the conflict set selected an objective"}, nil
			case obj.Terminal != "" || s.requested == ruleset.StateTerminate:
				e.transition(ctx, evSkipAct)
			case s.requested == ruleset.StateObserve:
				e.transition(ctx, evReobserve)
			default:
				e.transition(ctx, evSelected)
			}
		case StateAct:
			c, err := e.mint(ctx)
			if err != nil {
				return e.failed(err)
			}
			e.construct = c
			e.transition(ctx, evActed)
		case StateEvaluate:
			if err := e.gate(ctx); err != nil {
				return e.failed(err)
			}
			e.transition(ctx, evEvaluated)
		case ruleset.StateTerminate:
			if r, done := e.terminal(); done {
				return e.finish(ctx, r)
			}
			if _, err := s.runCycle(ctx, true); err != nil {
				return e.failed(err)
			}
			if r, done := e.terminal(); done {
				return e.finish(ctx, r)
			}
			if e.iteration >= s.opts.maxIterations {
				return trace.Halt{Outcome: OutcomeMaxIterations, Reason: fmt.Sprintf("reached the bound of %d iterations", s.opts.maxIterations)}, nil
			}
			e.iteration++
			e.transition(ctx, evIterate)
		}
	}
}

// terminal reports a finished run when the current objective is terminal.
func (e *Engine) terminal() (trace.Halt, bool) {
	obj, ok := e.sess.rs.Objective(e.sess.Objective())
	if !ok || obj.Terminal == "" {
		return trace.Halt{}, false
	}
	if obj.Terminal == ruleset.TerminalSuccess {
		return trace.Halt{Outcome: OutcomeSuccess}, true
	}
	return trace.Halt{Outcome: OutcomeFailure}, true
}

func (e *Engine) failed(err error) (trace.Halt, error) {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return trace.Halt{Outcome: OutcomeCanceled}, err
	}
	return trace.Halt{Outcome: OutcomeError}, err
}

// transition fires an FSM event from the loop (never from a callback), traces it and
// records the new state as a fact.
func (e *Engine) transition(ctx context.Context, event string) {
	from := e.fsm.Current()
	// The FSM must not see the caller's cancellation: looplab/fsm would abandon the
	// transition half done. The loop checks ctx itself at every state boundary.
	if err := e.fsm.Event(context.WithoutCancel(ctx), event); err != nil {
		// The loop only fires events valid in the current state.
		panic(fmt.Sprintf("spine: FSM event %q from %q: %v", event, from, err))
	}
	to := e.fsm.Current()
	e.sess.tracer.emit(trace.KindTransition, trace.Transition{From: from, To: to, Event: event, Iteration: e.iteration})
	e.sess.setState(to, e.iteration)
	e.sess.requested = ""
}

func (e *Engine) mint(ctx context.Context) (Construct, error) {
	req := MintRequest{Iteration: e.iteration, Objective: e.sess.Objective(), Rule: e.sess.objectiveRule(), Feedback: e.feedback()}
	var call func(context.Context, MintRequest) (Construct, error)
	if e.eff != nil {
		call = e.eff.Mint
	}
	return exchange(ctx, e, "mint", req, call, fmt.Sprintf("iteration %d, objective %s", e.iteration, req.Objective))
}

func (e *Engine) gate(ctx context.Context) error {
	req := GateRequest{Iteration: e.iteration, Objective: e.sess.Objective(), Construct: e.construct}
	var call func(context.Context, GateRequest) (Signals, error)
	if e.eff != nil {
		call = e.eff.Gate
	}
	sig, err := exchange(ctx, e, "gate", req, call, fmt.Sprintf("iteration %d, objective %s", e.iteration, req.Objective))
	return e.apply("gate", sig, err)
}

// apply turns a gate's or an observer's signals into fact changes and flushes the
// trace; err is the call's, returned as it is.
func (e *Engine) apply(op string, sig Signals, err error) error {
	if err != nil {
		return err
	}
	s := e.sess
	for i, c := range sig.Changes {
		var err error
		switch {
		case c.Kind == ruleset.KindState || c.Kind == ruleset.KindObjective:
			err = fmt.Errorf("the built-in kind %q is not the gate's to change", c.Kind)
		case c.Op == ChangePut:
			_, err = s.wm.change(c.Kind, c.ID, c.Fields, "")
		case c.Op == ChangeRetract:
			_, err = s.wm.retract(c.Kind, c.ID)
		default:
			err = fmt.Errorf("unknown op %q (expected %s or %s)", c.Op, ChangePut, ChangeRetract)
		}
		if err != nil {
			return fmt.Errorf("effector %s (iteration %d): change %d: %w", op, e.iteration, i+1, err)
		}
	}
	return s.Flush()
}

// feedback is every fact of a declared kind, in a stable order.
func (e *Engine) feedback() []Fact {
	out := []Fact{}
	for _, f := range e.sess.wm.All() {
		if f.Kind != ruleset.KindState && f.Kind != ruleset.KindObjective {
			out = append(out, f)
		}
	}
	return out
}

// exchange makes one effector call through the session's exchanger. The call's failure
// is returned as the effector's, with where it happened; the run departing from what the
// exchanger holds (see Exchanger) is returned as it is. call is nil when the engine has
// no effector.
func exchange[Req, Resp any](ctx context.Context, e *Engine, op string, req Req, call func(context.Context, Req) (Resp, error), where string) (res Resp, err error) {
	s := e.sess
	e.calls++
	reqJSON, err := json.Marshal(req)
	if err != nil {
		return res, fmt.Errorf("effector %s (%s): encoding the %s request: %w", op, where, op, err)
	}
	body := trace.EffectorCall{Call: e.calls, Op: op, RequestHash: ruleset.HashOf(reqJSON), Request: reqJSON}
	var invoke Invoke
	if call != nil {
		invoke = func(ctx context.Context) (any, error) {
			r, err := call(ctx, req)
			res = r
			return r, err
		}
	}
	err, stop := s.x.Exchange(ctx, tape{s}, body, invoke, &res)
	if stop != nil {
		return res, stop
	}
	if err != nil {
		return res, &EffectorError{Op: op, Where: where, Err: err}
	}
	return res, nil
}

// finish gives a Finisher effector its call on a terminal objective.
func (e *Engine) finish(ctx context.Context, r trace.Halt) (trace.Halt, error) {
	fin, ok := e.eff.(Finisher)
	if !e.sess.x.Makes(e.calls+1, "finish", ok) {
		return r, nil
	}
	e.finishing = true
	req := FinishRequest{Iteration: e.iteration, Objective: e.sess.Objective(), Rule: e.sess.objectiveRule(), Outcome: r.Outcome}
	var call func(context.Context, FinishRequest) (Construct, error)
	if ok {
		call = fin.Finish
	}
	if _, err := exchange(ctx, e, "finish", req, call, "objective "+req.Objective); err != nil {
		return e.failed(err)
	}
	return r, nil
}
