package roles

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine"
)

// judgeRequest is R4a's user turn.
type judgeRequest struct {
	SubTask struct {
		Intent          string   `json:"intent"`
		SuccessCriteria []string `json:"success_criteria"`
		Context         string   `json:"context"`
	} `json:"subtask"`
	Result contract.ExecutionResult `json:"execution_result"`
}

// fastLoop is one subtask's effector agent: R3 executes, R4a judges every criterion on
// its own, and while a criterion fails and the retry budget lasts R4a sends R3 a
// CorrectionSignal. The verdict is aggregated in code: one failed criterion fails the
// subtask. Only a cancelled context is an error.
func (p *Pipeline) fastLoop(ctx context.Context, rec recorder, a Assignment, dp dispatchPlan) (contract.SubTaskOutcome, error) {
	out := contract.SubTaskOutcome{SubTaskID: a.SubTaskID, ParentTaskID: p.task.TaskID, ToolCalls: []string{},
		GapTrajectory: []contract.GapAttempt{}}
	var corr *contract.CorrectionSignal
	for attempt := 1; attempt <= 1+p.cfg.RetryBudget; attempt++ {
		ex, err := p.execute(ctx, rec, a, attempt, corr, dp)
		if err != nil {
			return contract.SubTaskOutcome{}, err
		}
		res := ex.result
		rec.message(spine.Message{From: "R3", To: "R4a", Type: contract.TypeExecutionResult, Payload: &res})
		out.Output = res.Output
		out.ToolCalls = append(out.ToolCalls, res.ToolCalls...)

		var j judgement
		stop := false
		if ex.infra != nil {
			j, stop = environmentalFailure(a.SuccessCriteria, "R3 could not run: "+ex.infra.Error()), true
		} else {
			j, err = p.judge(ctx, rec, a, res)
			if err != nil {
				if ctx.Err() != nil {
					return contract.SubTaskOutcome{}, ctx.Err()
				}
				j, stop = environmentalFailure(a.SuccessCriteria, "R4a could not judge: "+err.Error()), true
			}
		}
		out.CriteriaVerdicts = j.Verdicts
		gap := contract.GapAttempt{Attempt: attempt, FailedCriteria: []contract.FailedCriterion{}}
		var first *contract.CriterionVerdict
		for i := range j.Verdicts {
			if v := &j.Verdicts[i]; v.Failed() {
				gap.FailedCriteria = append(gap.FailedCriteria, contract.FailedCriterion{Criterion: v.Criterion, FailureClass: v.Class()})
				if first == nil {
					first = v
				}
			}
		}
		out.GapTrajectory = append(out.GapTrajectory, gap)
		if first == nil {
			out.Status = contract.OutcomeMatched
			out.FailureReason = nil
			break
		}
		out.Status = contract.OutcomeFailed
		reason := fmt.Sprintf("%q failed (%s) after %d attempt(s): %s", first.Criterion, first.Class(), attempt, clip(first.Evidence, 200))
		out.FailureReason = &reason
		if stop || attempt > p.cfg.RetryBudget {
			break
		}
		corr = &contract.CorrectionSignal{SubTaskID: a.SubTaskID, AttemptNumber: attempt, FailedCriterion: first.Criterion,
			FailureClass: first.Class(), WhatWasWrong: first.Evidence, WhatToDo: j.WhatToDo}
		c := *corr
		rec.message(spine.Message{From: "R4a", To: "R3", Type: contract.TypeCorrectionSignal, Payload: &c})
	}
	o := out
	rec.message(spine.Message{From: "R4a", To: "R4b", Type: contract.TypeSubTaskOutcome, Payload: &o})
	return out, nil
}

// judge runs R4a on one execution result.
func (p *Pipeline) judge(ctx context.Context, rec recorder, a Assignment, res contract.ExecutionResult) (judgement, error) {
	var body judgeRequest
	body.SubTask.Intent, body.SubTask.SuccessCriteria, body.SubTask.Context = a.Intent, a.SuccessCriteria, a.Context
	body.Result = res
	user, err := json.Marshal(body)
	if err != nil {
		return judgement{}, fmt.Errorf("encoding the request: %w", err)
	}
	p.status(llm.R4a, a.SubTaskID, "judging "+fmt.Sprint(len(a.SuccessCriteria))+" criteria")
	req := llm.ChatRequest{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: agentValidatorPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}
	j, _, err := llm.CompleteJSON(ctx, p.model(llm.R4a, rec), req, func(j judgement) error {
		return validateJudgement(j, a.SuccessCriteria)
	})
	return j, err
}

// environmentalFailure is the verdict the runtime writes when no model verdict can be
// had: every criterion fails, for a reason outside the approach.
func environmentalFailure(criteria []string, why string) judgement {
	class := contract.FailureEnvironmental
	j := judgement{WhatToDo: ""}
	for _, c := range criteria {
		cl := class
		j.Verdicts = append(j.Verdicts, contract.CriterionVerdict{Criterion: strings.TrimSpace(c), Verdict: contract.VerdictFail,
			FailureClass: &cl, Evidence: why})
	}
	return j
}
