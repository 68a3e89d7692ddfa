package roles

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/ggs"
)

// mergeRequest is R4b's user turn.
type mergeRequest struct {
	RawInput     string          `json:"raw_input"`
	Intent       string          `json:"intent"`
	TaskCriteria []string        `json:"task_criteria"`
	Outcomes     []mergeEvidence `json:"subtask_outcomes"`
}

type mergeEvidence struct {
	SubTaskID string   `json:"subtask_id"`
	Intent    string   `json:"intent"`
	Output    any      `json:"output"`
	ToolCalls []string `json:"tool_calls"`
}

// metaValidate is R4b. The fan-in gate is code: when any subtask failed, the
// ReplanRequest goes to GGS at once and no model is called. Otherwise the model merges
// the outputs and judges each task criterion; anything but a pass on every criterion,
// including a model that cannot answer, is a rejection (a false replan costs a round, a
// false accept cannot be undone).
func (p *Pipeline) metaValidate(ctx context.Context, rec recorder, dp dispatchPlan, outcomes []contract.SubTaskOutcome) (ggs.Report, error) {
	criteria := dp.manifest.TaskCriteria
	corrections := 0
	var failed []string
	var gaps []string
	for _, o := range outcomes {
		corrections += max(len(o.GapTrajectory)-1, 0)
		if o.Status == contract.OutcomeFailed {
			failed = append(failed, o.SubTaskID)
			if o.FailureReason != nil {
				gaps = append(gaps, o.SubTaskID+": "+*o.FailureReason)
			}
		}
	}
	replan := func(gap string, verdicts []contract.CriterionVerdict) ggs.Report {
		return ggs.Report{Replan: &contract.ReplanRequest{TaskID: p.task.TaskID, Intent: p.task.Intent, GapSummary: gap,
			FailedSubTasks: nonNil(failed), CorrectionCount: corrections, ElapsedMS: p.elapsedMS(), Outcomes: outcomes,
			TaskCriteriaVerdicts: verdicts, Recommendation: "replan"}}
	}
	if len(failed) > 0 {
		return replan(fmt.Sprintf("%d/%d subtask(s) failed: %s", len(failed), len(outcomes), strings.Join(gaps, "; ")), nil), nil
	}

	body := mergeRequest{RawInput: p.task.RawInput, Intent: p.task.Intent, TaskCriteria: criteria}
	for i, o := range outcomes {
		body.Outcomes = append(body.Outcomes, mergeEvidence{SubTaskID: o.SubTaskID, Intent: dp.assignments[i].Intent,
			Output: o.Output, ToolCalls: o.ToolCalls})
	}
	user, err := json.Marshal(body)
	if err != nil {
		return ggs.Report{}, fmt.Errorf("R4b Meta-Validator: encoding the request: %w", err)
	}
	p.status(llm.R4b, "", fmt.Sprintf("merging %d result(s) and checking %d task criteria", len(outcomes), len(criteria)))
	req := llm.ChatRequest{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: metaValidatorPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}
	ans, _, err := llm.CompleteJSON(ctx, p.model(llm.R4b, rec), req, func(m mergeAnswer) error { return validateMerge(m, criteria) })
	if err != nil {
		if ctx.Err() != nil {
			return ggs.Report{}, ctx.Err()
		}
		j := environmentalFailure(criteria, "R4b could not verify the merged result: "+err.Error())
		return replan("the merged result could not be verified: "+clip(err.Error(), 200), j.Verdicts), nil
	}
	var rejected []string
	for _, v := range ans.Verdicts {
		if v.Failed() {
			rejected = append(rejected, fmt.Sprintf("%q (%s)", v.Criterion, v.Class()))
		}
	}
	if len(rejected) > 0 {
		return replan(fmt.Sprintf("every subtask matched, but the merged result fails %d/%d task criteria: %s",
			len(rejected), len(criteria), strings.Join(rejected, ", ")), ans.Verdicts), nil
	}
	return ggs.Report{Outcome: &contract.OutcomeSummary{TaskID: p.task.TaskID, Intent: p.task.Intent, Summary: ans.Summary,
		Output: ans.Merged, ElapsedMS: p.elapsedMS(), Outcomes: outcomes}}, nil
}
