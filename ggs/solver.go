package ggs

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Output is what one round produces: a PlanDirective on an action state, a FinalResult on
// a terminal one (exactly one of the two is set), with the signals and the deciding rule.
type Output struct {
	Directive *contract.PlanDirective
	Final     *contract.FinalResult
	Signals   Signals
	Rule      string
}

// Type is the bus type of the output message.
func (o Output) Type() string {
	if o.Final != nil {
		return contract.TypeFinalResult
	}
	return contract.TypePlanDirective
}

// Payload is the output message.
func (o Output) Payload() any {
	if o.Final != nil {
		return o.Final
	}
	return o.Directive
}

// Solver is the Goal Gradient Solver: it turns R4b's ReplanRequest and OutcomeSummary
// messages into PlanDirectives and FinalResults, keeping per-task state between rounds.
// Given the same rule set and the same messages in the same order it produces the same
// outputs. It is not safe for concurrent use.
type Solver struct {
	params  Params
	decider *RulesDecider
	tasks   *tracker
	mem     MemoryWriter
	clock   clock.Clock
	ids     engine.IDSource
	sessOpt []engine.Option
	caution string        // a Loop's caution policy (WithCautionPolicy); "" is the rule set's
	spare   *pendingRound // a concluded round's, for the next
}

// Option configures a Solver.
type Option func(*Solver)

// WithMemory sends the Megram writes of every round to w, stamped by clock and named by
// ids. Without it the Solver writes no memory.
func WithMemory(w MemoryWriter, clock clock.Clock, ids engine.IDSource) Option {
	return func(s *Solver) { s.mem, s.clock, s.ids = w, clock, ids }
}

// WithSessionOptions passes options (trace sink, clock, run id) to the spine session
// that runs the decision rules of a Solver from New. NewLoop refuses it: a Loop decides
// in the engine's session, which its host configures.
func WithSessionOptions(opts ...engine.Option) Option {
	return func(s *Solver) { s.sessOpt = append(s.sessOpt, opts...) }
}

// New returns a Solver whose params and decisions come from rs: it decides each round
// itself (HandleReplan, HandleOutcome) in a spine session of its own.
func New(rs *ruleset.RuleSet, opts ...Option) (*Solver, error) {
	s, err := newRounds(rs, opts)
	if err != nil {
		return nil, err
	}
	if s.decider, err = NewRulesDecider(rs, s.sessOpt...); err != nil {
		return nil, err
	}
	return s, nil
}

// newRounds returns a Solver without a decider: the params, per-task state and memory
// writes of GGS's rounds, which Observe and Conclude need. A host that decides with its
// own agenda (Loop) uses it, so no session is built that nothing would cycle.
func newRounds(rs *ruleset.RuleSet, opts []Option) (*Solver, error) {
	if err := CheckRuleSet(rs); err != nil {
		return nil, err
	}
	p, err := ParamsFrom(rs)
	if err != nil {
		return nil, err
	}
	s := &Solver{params: p, tasks: newTracker()}
	for _, o := range opts {
		o(s)
	}
	if s.mem != nil && (s.clock == nil || s.ids == nil) {
		return nil, errors.New("ggs: WithMemory needs a clock and an ID source")
	}
	return s, nil
}

// Params returns the params read from the rule set.
func (s *Solver) Params() Params { return s.params }

// OpenTasks lists, sorted, the task_ids that have had rounds but no terminal directive.
func (s *Solver) OpenTasks() []string { return s.tasks.open() }

// HandleReplan runs one round for a ReplanRequest.
func (s *Solver) HandleReplan(ctx context.Context, req *contract.ReplanRequest) (Output, error) {
	if err := ValidateReplan(req); err != nil {
		return Output{}, &InputError{Type: contract.TypeReplanRequest, Err: err}
	}
	return s.run(ctx, replanMessage(req))
}

// HandleOutcome runs one round for an OutcomeSummary: every subtask matched, so D = 0.
func (s *Solver) HandleOutcome(ctx context.Context, sum *contract.OutcomeSummary) (Output, error) {
	if err := ValidateOutcome(sum); err != nil {
		return Output{}, &InputError{Type: contract.TypeOutcomeSummary, Err: err}
	}
	return s.run(ctx, outcomeMessage(sum))
}

// message is one incoming message reduced to what a round needs.
type message struct {
	taskID, intent string
	gap, summary   string // R4b's gap summary (replan) or result summary (accept)
	d, p           float64
	elapsedMS      int64
	allMatched     bool
	tally          Tally
	calls          roundCalls
	output         any                       // an OutcomeSummary's output
	outputs        []contract.SubTaskOutcome // a ReplanRequest's: merged only if delivered
	fault          *contract.Fault           // the round's fault of the machinery, if any
	faultOnly      bool                      // the fault is all that failed
}

func replanMessage(req *contract.ReplanRequest) message {
	t := TallyReplan(req)
	return message{
		taskID: req.TaskID, intent: req.Intent, gap: req.GapSummary,
		d: t.D(), p: t.P(), elapsedMS: req.ElapsedMS,
		tally: t, calls: failingCalls(req.Outcomes, req.TaskCriteriaVerdicts), outputs: req.Outcomes,
		fault: RoundFault(req), faultOnly: faultOnly(req),
	}
}

func outcomeMessage(sum *contract.OutcomeSummary) message {
	return message{
		taskID: sum.TaskID, intent: sum.Intent, summary: sum.Summary,
		elapsedMS: sum.ElapsedMS, allMatched: true, output: sum.Output,
	}
}

func (s *Solver) run(ctx context.Context, in message) (Output, error) {
	sig := s.observe(in)
	dec, err := s.decider.Decide(ctx, sig)
	if err != nil {
		s.drop(in.taskID)
		return Output{}, fmt.Errorf("%w (task %s)", err, in.taskID)
	}
	return s.Conclude(in.taskID, dec)
}

// pendingRound is a round observed and not yet concluded.
type pendingRound struct {
	in    message
	sig   Signals
	known bool // the task had state before this round
}

// observe computes a round's signals and holds the round until Conclude.
func (s *Solver) observe(in message) Signals {
	_, known := s.tasks.tasks[in.taskID]
	st := s.tasks.get(in.taskID)
	sig := st.signals(s.params, in)
	p := s.spare
	if s.spare = nil; p == nil {
		p = new(pendingRound)
	}
	*p = pendingRound{in: in, sig: sig, known: known}
	st.pending = p
	return sig
}

// drop forgets a pending round, and the task too if the round opened it.
func (s *Solver) drop(taskID string) {
	st, ok := s.tasks.tasks[taskID]
	if !ok || st.pending == nil {
		return
	}
	if !st.pending.known {
		delete(s.tasks.tasks, taskID)
		return
	}
	s.release(st)
}

// release ends st's pending round, keeping its memory for the next.
func (s *Solver) release(st *taskState) {
	*st.pending = pendingRound{}
	s.spare, st.pending = st.pending, nil
}

// ObserveReplan computes the signals of a ReplanRequest's round and holds the round
// until Conclude. Hosts that decide with their own agenda (the FSM loop) use
// Observe/Conclude; HandleReplan does all three steps with the Solver's own rules.
func (s *Solver) ObserveReplan(req *contract.ReplanRequest) (Signals, error) {
	if err := ValidateReplan(req); err != nil {
		return Signals{}, &InputError{Type: contract.TypeReplanRequest, Err: err}
	}
	return s.observe(replanMessage(req)), nil
}

// ObserveOutcome computes the signals of an OutcomeSummary's round; see ObserveReplan.
func (s *Solver) ObserveOutcome(sum *contract.OutcomeSummary) (Signals, error) {
	if err := ValidateOutcome(sum); err != nil {
		return Signals{}, &InputError{Type: contract.TypeOutcomeSummary, Err: err}
	}
	return s.observe(outcomeMessage(sum)), nil
}

// Conclude turns the decision on a task's observed round into its PlanDirective or
// FinalResult, updates the task's state and writes the round's Megrams.
func (s *Solver) Conclude(taskID string, dec Decision) (Output, error) {
	st, ok := s.tasks.tasks[taskID]
	if !ok || st.pending == nil {
		return Output{}, fmt.Errorf("ggs: task %s has no observed round to conclude", taskID)
	}
	p := st.pending
	in, sig := p.in, p.sig
	if err := checkDirective(dec, in.allMatched); err != nil {
		s.drop(taskID)
		return Output{}, fmt.Errorf("%w (task %s)", err, taskID)
	}
	s.release(st)
	out := Output{Signals: sig, Rule: dec.Rule}
	prev := st.prev
	if in.intent != "" {
		st.intent = in.intent
	}
	if contract.IsTerminal(dec.Directive) {
		out.Final = s.final(in, sig, prev, dec.Directive)
		if dec.Directive == contract.DirectiveAbandon && in.fault != nil && (in.faultOnly || sig.Fault == FaultEnds) {
			out.Final.Reason = in.fault.Kind
		}
		delete(s.tasks.tasks, in.taskID)
		if sig.Interrupted == "" {
			// An interruption says nothing about the task: memory learns nothing from it.
			s.write(dec.Directive, st.intent, out.Final.Summary, nil, "")
		}
		return out, nil
	}
	if dec.Directive == contract.DirectiveRetry {
		out.Directive = s.retry(in, sig, prev, st)
		st.advanceRetry(sig)
		return out, nil
	}
	b := shapeBlocked(dec.Directive, sig.Grad, in.calls, st)
	out.Directive = &contract.PlanDirective{
		TaskID:          in.taskID,
		Loss:            sig.Loss(),
		PrevDirective:   prev,
		Directive:       dec.Directive,
		BlockedTools:    b.tools,
		BlockedTargets:  b.targets,
		FailedCriterion: in.tally.Primary,
		FailureClass:    in.tally.Class(),
		BudgetPressure:  sig.Omega,
		GradL:           sig.Grad,
		Rationale:       rationale(dec.Directive, sig, s.params, b, in.calls.merged),
	}
	st.remember(in.calls, b)
	st.advance(sig, dec.Directive)
	// Megrams go to the targets this round blocks itself. One carried from an earlier
	// directive had its Megram then; writing it again under, say, break_symmetry's
	// quantization (σ = +1) would tell memory to favour a path that failed. Tools are
	// written as blocked (see writeTools): only break_symmetry and change_approach block
	// any, and carrying one is that round's own judgement, not an accumulation.
	s.write(dec.Directive, st.intent, out.Directive.Rationale, b.added, in.tally.Primary)
	s.writeTools(dec.Directive, b.tools, in.tally.Primary)
	return out, nil
}

// checkDirective rejects objectives that are not macro-states, and accept for a round
// that is not an OutcomeSummary.
func checkDirective(dec Decision, allMatched bool) error {
	switch dec.Directive {
	case contract.DirectiveAccept:
		if !allMatched {
			return fmt.Errorf("ggs: rule %s chose accept, which needs an OutcomeSummary", dec.Rule)
		}
	case contract.DirectiveSuccess, contract.DirectiveAbandon,
		contract.DirectiveBreakSymmetry, contract.DirectiveChangeApproach,
		contract.DirectiveChangePath, contract.DirectiveRefine, contract.DirectiveRetry:
	default:
		return fmt.Errorf("ggs: rule %s chose objective %q, which is not a macro-state", dec.Rule, dec.Directive)
	}
	return nil
}

func (s *Solver) final(in message, sig Signals, prev, directive string) *contract.FinalResult {
	fr := &contract.FinalResult{
		TaskID:        in.taskID,
		Loss:          sig.Loss(),
		GradL:         sig.Grad,
		Replans:       sig.Replans,
		PrevDirective: prev,
		Directive:     directive,
	}
	switch directive {
	case contract.DirectiveAccept:
		fr.Summary, fr.Output = in.summary, in.delivered()
		if fr.Summary == "" {
			fr.Summary = summary(directive, sig, s.params, "")
		}
	case contract.DirectiveSuccess:
		fr.Summary, fr.Output = summary(directive, sig, s.params, in.gap), in.delivered()
	default:
		fr.Summary = summary(directive, sig, s.params, in.gap)
	}
	return fr
}

// delivered is what a success or an accept delivers: an OutcomeSummary's output, or a
// ReplanRequest's subtask outputs merged.
func (in message) delivered() any {
	if in.outputs != nil {
		return mergedOutputs(in.outputs)
	}
	return in.output
}

// mergedOutputs maps each subtask_id to its output, leaving out null outputs; nil when
// none is left. It is what a success delivers (encoding/json sorts the keys).
func mergedOutputs(outcomes []contract.SubTaskOutcome) any {
	var out map[string]any
	for i := range outcomes {
		o := &outcomes[i]
		if o.Output == nil {
			continue
		}
		if out == nil {
			out = map[string]any{}
		}
		out[o.SubTaskID] = o.Output
	}
	if out == nil {
		return nil
	}
	return out
}

// write sends the round's Megrams to memory, when there is one.
func (s *Solver) write(directive, intent, content string, targets []string, criterion string) {
	if s.mem == nil || len(targets) == 0 && !contract.IsTerminal(directive) {
		return
	}
	now := s.clock.Now()
	if contract.IsTerminal(directive) {
		// Under the seed's three-word tag, then under the whole intent's, so tasks that
		// merely start alike do not share potentials (see contract.IntentFullSlug).
		s.mem.Write(megram(directive, contract.IntentSpace(intent), "env:local", content, now, s.ids))
		s.mem.Write(megram(directive, contract.IntentFullSpace(intent), "env:local", content, now, s.ids))
		return
	}
	for _, t := range targets {
		tool, target := contract.SplitBlockedTarget(t)
		why := directive + ": " + t + " is blocked"
		if criterion != "" {
			why += " (failed: " + criterion + ")"
		}
		s.mem.Write(megram(directive, "tool:"+tool, "path:"+target, why, now, s.ids))
	}
}

// ToolEntity is the entity of a tool-level Megram: break_symmetry and change_approach
// judge a tool, not one of its targets, so their Megrams are tagged (tool:<name>,
// env:local), the pair memory's calibration reads for a tool alone. env:local is the
// entity the seed's key schema already gives a judgement that holds for the whole local
// environment (the terminal states' intent Megrams); a path:<target> entity would have
// to name a target the directive does not judge, and leaving it empty is not a valid tag.
const ToolEntity = "env:local"

// writeTools sends one Megram per tool a break_symmetry or change_approach directive
// blocks, quantized by the directive's row: change_approach (f 0.85, σ −1) marks the tool
// an anti-pattern; break_symmetry (f 0.75, σ +1) is the seed's "breakthrough; favour
// retry": the tool is set aside to break the symmetry of a stuck approach, not condemned.
// A widened change_approach blocks the tools of earlier directives again and writes them
// again: the worsening loss is new evidence against the whole approach. tools is sorted.
func (s *Solver) writeTools(directive string, tools []string, criterion string) {
	if s.mem == nil || len(tools) == 0 {
		return
	}
	now := s.clock.Now()
	for _, tool := range tools {
		why := directive + ": tool " + tool + " is blocked"
		if criterion != "" {
			why += " (failed: " + criterion + ")"
		}
		s.mem.Write(megram(directive, "tool:"+tool, ToolEntity, why, now, s.ids))
	}
}
