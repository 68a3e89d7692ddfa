package roles

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// corneredError is R2's plans breaking the MUST NOT set PlanAttempts times in a row.
type corneredError struct {
	attempts int
	last     string
}

func (e *corneredError) Error() string {
	return fmt.Sprintf("R2 Planner: %d plans in a row broke the MUST NOT set; the last: %s", e.attempts, e.last)
}

// faultOfError tells whether err is a fault of the machinery — a model that did not
// answer through its retries, an endpoint that refused the key, an answer over the size limit, an answer that broke its contract after the corrective
// turn, a cornered planner — and which. Anything else (a message outside its contract
// on the bus, a bug) is not: it stops the run as an error.
func faultOfError(role llm.RoleName, err error) (*contract.Fault, bool) {
	var (
		cornered  *corneredError
		output    *llm.OutputError
		exhausted *llm.ExhaustedError
		status    *llm.StatusError
		timeout   *llm.TimeoutError
		transport *llm.TransportError
		tooLarge  *llm.ResponseTooLargeError
	)
	kind := ""
	var tool faultKinded
	switch {
	case errors.As(err, &tool):
		kind = tool.FaultKind()
	case errors.As(err, &tooLarge):
		kind = contract.FaultResponseTooLarge
	case errors.As(err, &cornered):
		kind = contract.FaultPlannerCornered
	case errors.As(err, &output):
		kind = contract.FaultContractBroken
	case llm.KeyRefused(err):
		kind = contract.FaultKeyRefused
	case errors.As(err, &exhausted), errors.As(err, &status), errors.As(err, &timeout), errors.As(err, &transport),
		errors.Is(err, llm.ErrNoChoices):
		kind = contract.FaultModelUnavailable
	default:
		return nil, false
	}
	return &contract.Fault{Role: string(role), Kind: kind, Detail: clip(err.Error(), 400)}, true
}

// faulted ends a round that a role could not do: when the cause is a fault of the
// machinery, the round still ends in a report to GGS — a ReplanRequest that carries the
// fault and no verdict — so that a rule decides what follows, and the task still ends
// in a FinalResult. A cancelled context ends the round as interrupted; other errors are
// returned as they are.
func (p *Pipeline) faulted(ctx context.Context, post *bus.Post, role llm.RoleName, stage string, err error) error {
	if ctx.Err() != nil {
		return p.interrupted(ctx, post, stage, err)
	}
	f, ok := faultOfError(role, err)
	if !ok {
		return err
	}
	if role == llm.R1 {
		// R2 never got to read what GGS sent it for this round (a retry's directive).
		for {
			if _, more := post.Next("R2"); !more {
				break
			}
		}
	}
	rq := &contract.ReplanRequest{TaskID: p.task.TaskID, Intent: p.task.Intent, FailedSubTasks: []string{},
		Outcomes: []contract.SubTaskOutcome{}, ElapsedMS: p.elapsedMS(), Recommendation: "retry", Fault: f,
		GapSummary: fmt.Sprintf("%s could not do its job while %s (%s): %s", role, stage, f.Kind, f.Detail)}
	if f.Fatal() {
		rq.Recommendation = "abandon"
	}
	_, serr := post.Send("R4b", "R7", contract.TypeReplanRequest, p.task.TaskID, rq)
	return serr
}
