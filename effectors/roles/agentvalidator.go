package roles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// judgeRequest is R4a's user turn. Criteria with a stated mode appear as {criterion,
// mode}; when any is plausible, the subtask's earlier attempts come along, since a
// plausible criterion is judged on the trajectory as well as this attempt's evidence.
type judgeRequest struct {
	SubTask struct {
		Intent          string            `json:"intent"`
		SuccessCriteria contract.Criteria `json:"success_criteria"`
		Context         string            `json:"context"`
	} `json:"subtask"`
	Result        contract.ExecutionResult `json:"execution_result"`
	GapTrajectory []contract.GapAttempt    `json:"gap_trajectory,omitempty"`
}

// effectorAgent runs one subtask's effector agent on its own branch of the post: R3 and
// R4a take turns, each reading only its own mailbox, until R4a posts the SubTaskOutcome
// to R4b. R3 executes; R4a judges every criterion on its own, and while a criterion
// fails and the retry budget lasts it sends R3 a CorrectionSignal. The verdict is
// aggregated in code: one failed criterion fails the subtask. It returns the outcome's
// status for the dispatcher; only a cancelled context or a broken contract is an error.
//
// A subtask with a deadline is stopped once the pipeline's clock reaches it, before
// another attempt (or, on the wall clock, mid-call): R4a reports it failed with the
// deadline as an environmental failure.
func (p *Pipeline) effectorAgent(ctx context.Context, rec recorder, post *bus.Post, g guard, a *contract.Assignment) (string, error) {
	x := &executor{p: p, rec: rec, post: post, guard: g}
	v := &validator{p: p, rec: rec, post: post}
	dl := p.deadlineOf(a)
	sctx, cancel := dl.bound(ctx)
	defer cancel()
	// late tells whether the step's error is the deadline's (the wall clock's timer).
	late := func() bool {
		return ctx.Err() == nil && errors.Is(context.Cause(sctx), errDeadline) && sctx.Err() != nil
	}
	for {
		if now, past := dl.passed(); past {
			return v.stop(a, dl, now)
		}
		if err := x.step(sctx); err != nil {
			if late() {
				return v.stop(a, dl, dl.at)
			}
			return "", err
		}
		status, done, err := v.step(sctx)
		if err != nil && late() {
			return v.stop(a, dl, dl.at)
		}
		if err != nil || done {
			return status, err
		}
	}
}

// executor is R3 for one subtask: what it was asked to do and how often it tried.
type executor struct {
	p       *Pipeline
	rec     recorder
	post    *bus.Post
	guard   guard
	a       contract.Assignment
	attempt int
}

// step takes R3's next message — its SubTask, or a CorrectionSignal — runs one attempt
// and posts the ExecutionResult to R4a.
func (x *executor) step(ctx context.Context) error {
	m, ok := x.post.Next("R3")
	var corr *contract.CorrectionSignal
	switch {
	case !ok:
		return errors.New("bus: R3 expected a SubTask or a CorrectionSignal, and its mailbox is empty")
	case m.Type == contract.TypeSubTask:
		if err := bus.Decode(m, &x.a); err != nil {
			return err
		}
		x.attempt = 1
	case m.Type == contract.TypeCorrectionSignal:
		corr = new(contract.CorrectionSignal)
		if err := bus.Decode(m, corr); err != nil {
			return err
		}
		x.attempt++
	default:
		return fmt.Errorf("bus: R3 expected a SubTask or a CorrectionSignal, and its next message is %s from %s", bus.Article(m.Type), m.From)
	}
	ex, err := x.p.execute(ctx, x.rec, x.post, x.a, x.attempt, corr, x.guard)
	if err != nil {
		return err
	}
	res := ex.result
	if ex.infra != nil {
		res.Output = executorFault{Error: fmt.Sprint(res.Output), Kind: faultKind(llm.R3, ex.infra)}
	}
	_, err = x.post.Send("R3", "R4a", contract.TypeExecutionResult, x.a.ParentTaskID, res)
	return err
}

// executorFault is the output of an ExecutionResult whose executor could not run at all
// (its model did not answer): there is nothing for R4a's model to judge.
type executorFault struct {
	Error string `json:"executor_error"`
	Kind  string `json:"fault_kind"`
}

// faultKind is the kind of fault err is for role, model_unavailable when it is no known one.
func faultKind(role llm.RoleName, err error) string {
	if f, ok := faultOfError(role, err); ok {
		return f.Kind
	}
	return contract.FaultModelUnavailable
}

// faultOf reports the executor fault an ExecutionResult carries, if any.
func faultOf(res contract.ExecutionResult) (*contract.Fault, bool) {
	if res.Status != contract.ExecFailed {
		return nil, false
	}
	m, ok := res.Output.(map[string]any)
	if !ok || len(m) != 2 {
		return nil, false
	}
	e, ok := m["executor_error"].(string)
	kind, ok2 := m["fault_kind"].(string)
	// A fault of the model comes before any tool call; a tool's server can fail after some.
	if !ok || !ok2 || len(res.ToolCalls) > 0 && kind != contract.FaultToolUnavailable {
		return nil, false
	}
	return &contract.Fault{Role: string(llm.R3), Kind: kind, Detail: clip(e, 400)}, true
}

// validator is R4a for one subtask: the rubric it judges by and the outcome so far.
type validator struct {
	p    *Pipeline
	rec  recorder
	post *bus.Post
	a    *contract.Assignment
	out  contract.SubTaskOutcome
}

// rubric takes R4a's copy of its SubTask, which travels with the dispatch.
func (v *validator) rubric() error {
	if v.a != nil {
		return nil
	}
	a, _, err := bus.Receive[contract.Assignment](v.post, "R4a", contract.TypeSubTask)
	if err != nil {
		return err
	}
	v.a = &a
	v.out = contract.SubTaskOutcome{SubTaskID: a.SubTaskID, ParentTaskID: a.ParentTaskID, ToolCalls: []string{},
		GapTrajectory: []contract.GapAttempt{}}
	return nil
}

// step judges the ExecutionResult in R4a's mailbox, then posts either a CorrectionSignal
// to R3 or, when the subtask is settled, the SubTaskOutcome to R4b (done).
func (v *validator) step(ctx context.Context) (status string, done bool, err error) {
	if err := v.rubric(); err != nil {
		return "", false, err
	}
	res, _, err := bus.Receive[contract.ExecutionResult](v.post, "R4a", contract.TypeExecutionResult)
	if err != nil {
		return "", false, err
	}
	a, out := v.a, &v.out
	attempt := len(out.GapTrajectory) + 1
	out.Output = res.Output
	out.ToolCalls = append(out.ToolCalls, res.ToolCalls...)

	// A fault of the machinery — R3's model gone, R4a's model unable to judge — settles
	// the subtask as failed with the fault and no verdict: nothing about the task was
	// learnt, so nothing enters D or P, and GGS's rules decide whether to run it again.
	fault, faulted := faultOf(res)
	var j judgement
	if !faulted {
		j, err = v.p.judge(ctx, v.rec, *a, res, out.GapTrajectory)
		if err != nil {
			if ctx.Err() != nil {
				return "", false, ctx.Err()
			}
			if fault, faulted = faultOfError(llm.R4a, err); !faulted {
				return "", false, fmt.Errorf("R4a Agent-Validator: %w", err)
			}
		}
	}
	if faulted {
		reason := fmt.Sprintf("%s could not do its job (%s): %s", fault.Role, fault.Kind, fault.Detail)
		out.Status, out.FailureReason, out.Fault = contract.OutcomeFailed, &reason, fault
		out.CriteriaVerdicts = []contract.CriterionVerdict{}
		out.GapTrajectory = append(out.GapTrajectory, contract.GapAttempt{Attempt: attempt, FailedCriteria: []contract.FailedCriterion{}})
		return v.settle()
	}
	stampModes(j.Verdicts, a.SuccessCriteria)
	out.CriteriaVerdicts = j.Verdicts
	gap := contract.GapAttempt{Attempt: attempt, FailedCriteria: []contract.FailedCriterion{}}
	var first *contract.CriterionVerdict
	for i := range j.Verdicts {
		if vd := &j.Verdicts[i]; vd.Failed() {
			gap.FailedCriteria = append(gap.FailedCriteria, contract.FailedCriterion{Criterion: vd.Criterion, FailureClass: vd.Class()})
			if first == nil {
				first = vd
			}
		}
	}
	out.GapTrajectory = append(out.GapTrajectory, gap)
	if first == nil {
		out.Status, out.FailureReason = contract.OutcomeMatched, nil
		return v.settle()
	}
	out.Status = contract.OutcomeFailed
	reason := fmt.Sprintf("%q failed (%s) after %d attempt(s): %s", first.Criterion, first.Class(), attempt, clip(first.Evidence, 200))
	out.FailureReason = &reason
	if attempt > v.p.cfg.RetryBudget {
		return v.settle()
	}
	corr := contract.CorrectionSignal{SubTaskID: a.SubTaskID, AttemptNumber: attempt, FailedCriterion: first.Criterion,
		FailureClass: first.Class(), WhatWasWrong: first.Evidence, WhatToDo: j.WhatToDo}
	_, err = v.post.Send("R4a", "R3", contract.TypeCorrectionSignal, a.ParentTaskID, corr)
	return "", false, err
}

// settle posts the outcome to R4b, once its passing verdicts have been held to the
// evidence in code (checkEvidence).
func (v *validator) settle() (string, bool, error) {
	v.p.checkEvidence(*v.a, &v.out)
	_, err := v.post.Send("R4a", "R4b", contract.TypeSubTaskOutcome, v.a.ParentTaskID, v.out)
	return v.out.Status, true, err
}

// stampModes gives each verdict the mode R2 stated for its criterion (verdicts are in the
// criteria's order, checkVerdicts holds them to it): the mode is set at planning time,
// whatever the judging model wrote.
func stampModes(vs []contract.CriterionVerdict, cs contract.Criteria) {
	for i := range vs {
		if i < len(cs) {
			vs[i].Mode = cs[i].Mode
		}
	}
}

// judge runs R4a on one execution result; earlier is the subtask's gap trajectory so far.
func (p *Pipeline) judge(ctx context.Context, rec recorder, a contract.Assignment, res contract.ExecutionResult, earlier []contract.GapAttempt) (judgement, error) {
	var body judgeRequest
	body.SubTask.Intent, body.SubTask.SuccessCriteria, body.SubTask.Context = a.Intent, a.SuccessCriteria, a.Context
	body.Result = res
	for _, c := range a.SuccessCriteria {
		if c.Plausible() {
			body.GapTrajectory = earlier
			break
		}
	}
	user, err := json.Marshal(body)
	if err != nil {
		return judgement{}, fmt.Errorf("encoding the request: %w", err)
	}
	p.status(llm.R4a, a.SubTaskID, "judging "+fmt.Sprint(len(a.SuccessCriteria))+" criteria")
	req := contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: llm.RoleSystem, Content: agentValidatorPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}
	j, _, err := llm.CompleteJSON(ctx, p.model(llm.R4a, rec), req, func(j judgement) error {
		return validateJudgement(j, a.SuccessCriteria.Texts())
	})
	return j, err
}
