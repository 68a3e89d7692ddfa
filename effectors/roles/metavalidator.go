package roles

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// mergeRequest is R4b's user turn.
type mergeRequest struct {
	RawInput     string            `json:"raw_input"`
	Intent       string            `json:"intent"`
	TaskCriteria contract.Criteria `json:"task_criteria"`
	Outcomes     []mergeEvidence   `json:"subtask_outcomes"`
}

type mergeEvidence struct {
	SubTaskID string   `json:"subtask_id"`
	Output    any      `json:"output"`
	ToolCalls []string `json:"tool_calls"`
}

// r4bMail is what R4b has received in a round: R2's DispatchManifest and R4a's outcomes
// by subtask ID.
type r4bMail struct {
	manifest contract.DispatchManifest
	outcomes map[string]contract.SubTaskOutcome
}

// r4bInbox empties R4b's mailbox. A message R4b's contract does not take, or a second
// outcome for one subtask, is an error; what was read so far is returned with it.
func (p *Pipeline) r4bInbox(post *bus.Post) (r4bMail, error) {
	mail := r4bMail{outcomes: map[string]contract.SubTaskOutcome{}}
	var errs []error
	for {
		m, ok := post.Next("R4b")
		if !ok {
			return mail, errors.Join(errs...)
		}
		switch m.Type {
		case contract.TypeDispatchManifest:
			if err := bus.Decode(m, &mail.manifest); err != nil {
				errs = append(errs, err)
			}
		case contract.TypeSubTaskOutcome:
			var o contract.SubTaskOutcome
			if err := bus.Decode(m, &o); err != nil {
				errs = append(errs, err)
				continue
			}
			if _, dup := mail.outcomes[o.SubTaskID]; dup {
				errs = append(errs, fmt.Errorf("bus: R4b received two SubTaskOutcomes for subtask %s", o.SubTaskID))
				continue
			}
			mail.outcomes[o.SubTaskID] = o
		default:
			errs = append(errs, fmt.Errorf("bus: R4b received %s from %s; it takes a DispatchManifest and SubTaskOutcomes", bus.Article(m.Type), m.From))
		}
	}
}

// metaValidate is R4b. It reads the manifest and the outcomes from its mailbox and posts
// its report to R7. The fan-in gate is code: when any subtask failed, or its outcome
// never arrived, the ReplanRequest goes at once and no model is called. Otherwise the
// model merges the outputs and judges each task criterion; anything but a pass on every
// criterion, including a model that cannot answer, is a rejection (a false replan costs a
// round, a false accept cannot be undone).
func (p *Pipeline) metaValidate(ctx context.Context, rec recorder, post *bus.Post) error {
	mail, err := p.r4bInbox(post)
	if err != nil {
		return err
	}
	if mail.manifest.TaskSpec == nil {
		return errors.New("bus: R4b has no DispatchManifest with its TaskSpec to validate against")
	}
	task, criteria := *mail.manifest.TaskSpec, mail.manifest.TaskCriteria
	report := func(typ string, payload any) error {
		_, err := post.Send("R4b", "R7", typ, task.TaskID, payload)
		return err
	}
	outcomes := make([]contract.SubTaskOutcome, 0, len(mail.manifest.SubTaskIDs))
	corrections := 0
	var failed, gaps []string
	for _, id := range mail.manifest.SubTaskIDs {
		o, ok := mail.outcomes[id]
		if !ok {
			o = unfinished(id, task.TaskID, "no SubTaskOutcome arrived for it")
		}
		outcomes = append(outcomes, o)
		corrections += max(len(o.GapTrajectory)-1, 0)
		if o.Status == contract.OutcomeFailed {
			failed = append(failed, o.SubTaskID)
			if o.FailureReason != nil {
				gaps = append(gaps, o.SubTaskID+": "+*o.FailureReason)
			}
		}
	}
	replan := func(gap string, verdicts []contract.CriterionVerdict) error {
		return report(contract.TypeReplanRequest, &contract.ReplanRequest{TaskID: task.TaskID, Intent: task.Intent, GapSummary: gap,
			FailedSubTasks: nonNil(failed), CorrectionCount: corrections, ElapsedMS: p.elapsedMS(), Outcomes: outcomes,
			TaskCriteriaVerdicts: verdicts, Recommendation: "replan"})
	}
	if len(failed) > 0 {
		return replan(fmt.Sprintf("%d/%d subtask(s) failed: %s", len(failed), len(outcomes), strings.Join(gaps, "; ")), nil)
	}

	body := mergeRequest{RawInput: task.RawInput, Intent: task.Intent, TaskCriteria: criteria}
	for _, o := range outcomes {
		body.Outcomes = append(body.Outcomes, mergeEvidence{SubTaskID: o.SubTaskID, Output: o.Output, ToolCalls: o.ToolCalls})
	}
	user, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("R4b Meta-Validator: encoding the request: %w", err)
	}
	p.status(llm.R4b, "", fmt.Sprintf("merging %d result(s) and checking %d task criteria", len(outcomes), len(criteria)))
	req := contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: llm.RoleSystem, Content: metaValidatorPrompt},
		{Role: llm.RoleUser, Content: string(user)},
	}, Temperature: zero()}
	ans, _, err := llm.CompleteJSON(ctx, p.model(llm.R4b, rec), req, func(m mergeAnswer) error { return validateMerge(m, criteria.Texts()) })
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		// R4b's model could not judge: a fault of the machinery, not a verdict on the
		// merged result. A rule decides whether the round runs again.
		f, ok := faultOfError(llm.R4b, err)
		if !ok {
			return fmt.Errorf("R4b Meta-Validator: %w", err)
		}
		return report(contract.TypeReplanRequest, &contract.ReplanRequest{TaskID: task.TaskID, Intent: task.Intent,
			GapSummary: "the merged result could not be verified: " + clip(err.Error(), 200), FailedSubTasks: []string{},
			CorrectionCount: corrections, ElapsedMS: p.elapsedMS(), Outcomes: outcomes, Recommendation: "retry", Fault: f})
	}
	stampModes(ans.Verdicts, criteria)
	var rejected []string
	for _, v := range ans.Verdicts {
		if v.Failed() {
			rejected = append(rejected, fmt.Sprintf("%q (%s)", v.Criterion, v.Class()))
		}
	}
	if len(rejected) > 0 {
		return replan(fmt.Sprintf("every subtask matched, but the merged result fails %d/%d task criteria: %s",
			len(rejected), len(criteria), strings.Join(rejected, ", ")), ans.Verdicts)
	}
	return report(contract.TypeOutcomeSummary, &contract.OutcomeSummary{TaskID: task.TaskID, Intent: task.Intent, Summary: ans.Summary,
		Output: ans.Merged, ElapsedMS: p.elapsedMS(), Outcomes: outcomes})
}
