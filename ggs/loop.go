package ggs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Plant is what GGS steers: one round of planning, execution and validation (R2, R3 × N
// with R4a, R4b) that ends in R4b's report. The role pipeline is the production plant;
// designed scenarios are the test double.
//
// GGS and the plant talk only through post: on every round after the first, R2's
// mailbox holds GGS's PlanDirective, and the round must end with R4b's ReplanRequest or
// OutcomeSummary in R7's mailbox. A round that leaves mail unread is an error.
type Plant interface {
	Round(ctx context.Context, post *bus.Post, in RoundInput) error
}

// RoundInput says which round of which task the plant runs; what to plan from arrives
// by post.
type RoundInput struct {
	TaskID string `json:"task_id"`
	Intent string `json:"intent"`
	Round  int    `json:"round"`
	// Rulings are the rules' rulings on the memory pairs OBSERVE read before the round
	// (see PairSource); the plant holds the round's plan and tool calls to them.
	Rulings []Ruling `json:"rulings,omitempty"`
}

// Loop runs GGS inside the spine's FSM: the engine's agenda over rules/ggs.yaml decides
// each round's macro-state, and Loop is the engine's effector. Mint concludes the
// previous round into a PlanDirective and runs the plant's next round; Gate turns R4b's
// report into the signals fact; Finish delivers the FinalResult. Every message goes by
// post: it is journalled in the trace (whose tap shows it to the run's observers), and
// only then delivered.
type Loop struct {
	solver *Solver
	plant  Plant
	task   contract.TaskSpec
	round  int

	// sess is the engine's session (from Seed) and rs the rule set whose params the
	// Solver holds; they differ after a hot reload until syncParams catches up.
	sess *engine.Session
	rs   *ruleset.RuleSet

	post      *bus.Post // the post of the effector call in progress
	mailErr   error     // what the memory desk could not deliver during the call
	elapsedMS int64     // the task's time as the latest report gave it, for an interruption's Ω
	obs       observation
	// minted is the report of the round Mint ran last, under the construct's id: Gate
	// measures it as it is instead of decoding the construct's body again.
	minted   Message
	mintedID string

	// Final is the task's FinalResult once the run has ended on a terminal objective.
	Final *contract.FinalResult
}

var (
	_ engine.Effector = (*Loop)(nil)
	_ engine.Finisher = (*Loop)(nil)
)

// NewLoop returns the effector for one task. rs must be a GGS rule set (CheckRuleSet).
func NewLoop(rs *ruleset.RuleSet, plant Plant, task contract.TaskSpec, opts ...Option) (*Loop, error) {
	if task.TaskID == "" {
		return nil, errors.New("ggs: the task has no task_id")
	}
	// The engine's agenda decides each round, so the Solver only observes and concludes:
	// it gets no session of its own.
	s, err := newRounds(rs, opts)
	if err != nil {
		return nil, err
	}
	if len(s.sessOpt) > 0 {
		return nil, errors.New("ggs: WithSessionOptions configures the session of a Solver from New; a Loop decides in the engine's session")
	}
	l := &Loop{solver: s, plant: plant, task: task, rs: rs}
	if s.mem != nil {
		s.mem = &postedMemory{loop: l, store: s.mem}
	}
	return l, nil
}

// Seed puts the round-0 signals fact into the engine's session, so that the first
// select_objective chooses plan, and follows the session's rule set from then on. Call
// it before Engine.Run.
func (l *Loop) Seed(sess *engine.Session) error {
	l.sess = sess
	_, err := sess.Put(SignalsKind, "", Signals{})
	return err
}

// syncParams gives the Solver the params of the rule set the engine runs now. A hot
// reload (spine run --watch) swaps the rule set at a select_objective; the decision then
// compares against the new thresholds, so the arithmetic that follows and the rationale
// and summary that quote the thresholds must use them too. A round's signals are measured
// with the params in force when R4b's report arrives. A reloaded rule set that lacks
// a param GGS needs is an error, not a silent fall-back to the old values.
func (l *Loop) syncParams() error {
	if l.sess == nil {
		return nil
	}
	rs := l.sess.RuleSet()
	if rs == l.rs {
		return nil
	}
	p, err := ParamsFrom(rs)
	if err != nil {
		return fmt.Errorf("ggs: reloaded rules %s: %w", rs.Path(), err)
	}
	l.solver.params, l.rs = p, rs
	return nil
}

// Mint concludes the previous round with the engine's decision and runs the next round.
func (l *Loop) Mint(ctx context.Context, req engine.MintRequest) (engine.Construct, error) {
	if err := l.syncParams(); err != nil {
		return engine.Construct{}, err
	}
	post := l.open(ctx)
	defer l.close()
	if req.Objective != ObjectivePlan {
		out, err := l.solver.Conclude(l.task.TaskID, Decision{Directive: req.Objective, Rule: req.Rule})
		if err != nil {
			return engine.Construct{}, err
		}
		if l.mailErr != nil {
			return engine.Construct{}, l.mailErr
		}
		if out.Directive == nil {
			return engine.Construct{}, fmt.Errorf("ggs: objective %s is terminal; it reaches Finish, not Mint", req.Objective)
		}
		if _, err := post.Send("R7", "R2", contract.TypePlanDirective, l.task.TaskID, out.Directive); err != nil {
			return engine.Construct{}, err
		}
	}
	l.round++
	in := RoundInput{TaskID: l.task.TaskID, Intent: l.task.Intent, Round: l.round, Rulings: l.takeRulings()}
	if err := l.plant.Round(ctx, post, in); err != nil {
		return engine.Construct{}, fmt.Errorf("round %d: %w", l.round, err)
	}
	rep, err := receiveReport(post)
	if err != nil {
		return engine.Construct{}, fmt.Errorf("round %d: %w", l.round, err)
	}
	switch {
	case rep.Replan != nil:
		l.elapsedMS = rep.Replan.ElapsedMS
	case rep.Outcome != nil:
		l.elapsedMS = rep.Outcome.ElapsedMS
	}
	// The report is encoded as the construct's body because the trace records it (the
	// mint's result and the gate's request); Gate reads the value kept here, not the body.
	body, err := json.Marshal(rep)
	if err != nil {
		return engine.Construct{}, err
	}
	id := fmt.Sprintf("%s/round-%d", l.task.TaskID, l.round)
	l.minted, l.mintedID = rep, id
	return engine.Construct{ID: id, Body: body}, nil
}

// Gate measures R4b's report: D, P, Ω, L, ∇L and the Law 2 counter become the signals fact.
func (l *Loop) Gate(ctx context.Context, req engine.GateRequest) (engine.Signals, error) {
	rep, err := l.report(req.Construct)
	if err != nil {
		return engine.Signals{}, err
	}
	if err := rep.validate(); err != nil {
		return engine.Signals{}, err
	}
	if err := l.syncParams(); err != nil {
		return engine.Signals{}, err
	}
	// R4b may leave the intent out; GGS knows the task's, and memory tags need it.
	if rep.Replan != nil && rep.Replan.Intent == "" {
		rep.Replan.Intent = l.task.Intent
	}
	if rep.Outcome != nil && rep.Outcome.Intent == "" {
		rep.Outcome.Intent = l.task.Intent
	}
	if tb, ok := l.plant.(TimeBudgeter); ok {
		if ms, ok := tb.TimeBudgetMS(); ok {
			l.solver.BoundTimeBudget(l.task.TaskID, ms)
		}
	}
	var sig Signals
	if rep.Replan != nil {
		sig, err = l.solver.ObserveReplan(rep.Replan)
	} else {
		sig, err = l.solver.ObserveOutcome(rep.Outcome)
	}
	if err != nil {
		return engine.Signals{}, err
	}
	return engine.Signals{Changes: []engine.Change{{Op: engine.ChangePut, Kind: SignalsKind, Fields: sig.fields()}}}, nil
}

// report is the round report c carries: the one Mint kept when c is the construct it
// minted (a live run gates what it minted), else c's body decoded.
func (l *Loop) report(c engine.Construct) (Message, error) {
	if c.ID != "" && c.ID == l.mintedID {
		rep := l.minted
		l.minted, l.mintedID = Message{}, ""
		return rep, nil
	}
	var rep Message
	if err := json.Unmarshal(c.Body, &rep); err != nil {
		return Message{}, fmt.Errorf("ggs: construct %s is not a round report: %w", c.ID, err)
	}
	return rep, nil
}

// Finish concludes the last round into the FinalResult, with the plant's graceful
// failure when the task is abandoned (FailureReporter), and posts it to the user.
func (l *Loop) Finish(ctx context.Context, req engine.FinishRequest) (engine.Construct, error) {
	if err := l.syncParams(); err != nil {
		return engine.Construct{}, err
	}
	l.open(ctx)
	defer l.close()
	out, err := l.solver.Conclude(l.task.TaskID, Decision{Directive: req.Objective, Rule: req.Rule})
	if err != nil {
		return engine.Construct{}, err
	}
	if l.mailErr != nil {
		return engine.Construct{}, l.mailErr
	}
	if out.Final == nil {
		return engine.Construct{}, fmt.Errorf("ggs: objective %s is not terminal", req.Objective)
	}
	if fr, ok := l.plant.(FailureReporter); ok && out.Final.Directive == contract.DirectiveAbandon {
		out.Final.Failure = fr.GracefulFailure(out.Final)
	}
	// The FinalResult is recorded as R7's message to the user because the trace holds that
	// line; nobody in this process reads a user's mailbox, so it is recorded, not delivered.
	if err := l.record("User", contract.TypeFinalResult, out.Final); err != nil {
		return engine.Construct{}, err
	}
	l.Final = out.Final
	body, err := json.Marshal(l.Final)
	if err != nil {
		return engine.Construct{}, err
	}
	return engine.Construct{ID: l.task.TaskID + "/final", Body: body}, nil
}

// fields is the signals fact's payload.
func (s Signals) fields() ruleset.Fields {
	return ruleset.Fields{
		"round": s.Round, "D": s.D, "P": s.P, "omega": s.Omega, "beta_eff": s.BetaEff,
		"L": s.L, "grad": s.Grad, "worsening": s.Worsening, "replans": s.Replans, "all_matched": s.AllMatched,
		"fault": s.Fault,
	}
}
