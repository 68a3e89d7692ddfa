package roles

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
)

// DeadlineCriterion names the failed criterion of a subtask stopped at its deadline. Its
// failure class is environmental: the world's clock, not the approach, ran out.
const DeadlineCriterion = "deadline"

// errDeadline is the cause of a subtask's context cancelled at its deadline.
var errDeadline = errors.New("the subtask's deadline passed")

// ParseDeadline reads a TaskSpec's or SubTask's ISO 8601 deadline: an RFC 3339 time, a
// local time without zone (read as UTC), or a date, which lasts to the end of that day
// (UTC). ok is false for an absent or empty deadline; err for one that does not parse.
func ParseDeadline(s *string) (t time.Time, ok bool, err error) {
	if s == nil || *s == "" {
		return time.Time{}, false, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04"} {
		if t, err := time.Parse(layout, *s); err == nil {
			return t.UTC(), true, nil
		}
	}
	if d, err := time.Parse("2006-01-02", *s); err == nil {
		return d.AddDate(0, 0, 1), true, nil
	}
	return time.Time{}, false, fmt.Errorf("deadline %q is not an ISO 8601 date or time", *s)
}

// subtaskDeadline is one subtask's deadline on the pipeline's clock.
type subtaskDeadline struct {
	p  *Pipeline
	at time.Time
	on bool
}

// deadlineOf reads a's deadline; a deadline that does not parse was refused with the
// plan, so here it is none.
func (p *Pipeline) deadlineOf(a *contract.Assignment) subtaskDeadline {
	at, ok, _ := ParseDeadline(a.Deadline)
	return subtaskDeadline{p: p, at: at, on: ok}
}

// bound returns ctx cancelled at the deadline. On the wall clock (a live run) a timer
// cancels it mid-call; on any other clock — a test's — the deadline is checked on the
// clock's readings at every step (passed), so that no test waits for time.
func (d subtaskDeadline) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, wall := d.p.cfg.Clock.(clock.System); d.on && wall {
		return context.WithDeadlineCause(ctx, d.at, errDeadline)
	}
	return ctx, func() {}
}

// passed reads the clock and tells whether the deadline has passed, and when; a
// subtask without a deadline reads no clock.
func (d subtaskDeadline) passed() (time.Time, bool) {
	if !d.on {
		return time.Time{}, false
	}
	now := d.p.cfg.Clock.Now()
	return now, !now.Before(d.at)
}

// stop settles a subtask stopped at its deadline: R3's and R4a's mail is set aside, and
// R4a reports the subtask failed with the deadline as its one failed criterion
// (environmental), the tool calls and attempts made so far kept.
func (v *validator) stop(a *contract.Assignment, d subtaskDeadline, now time.Time) (string, error) {
	for _, role := range []string{"R3", "R4a"} {
		for {
			if _, more := v.post.Next(role); !more {
				break
			}
		}
	}
	out := v.out
	if v.a == nil {
		out = contract.SubTaskOutcome{SubTaskID: a.SubTaskID, ParentTaskID: a.ParentTaskID}
	}
	class := contract.FailureEnvironmental
	evidence := fmt.Sprintf("the deadline %s passed (at %s) after %d attempt(s); the subtask was stopped",
		d.at.Format(time.RFC3339), now.UTC().Format(time.RFC3339), len(out.GapTrajectory))
	reason := DeadlineCriterion + ": " + evidence
	out.Status, out.FailureReason, out.Fault = contract.OutcomeFailed, &reason, nil
	out.CriteriaVerdicts = []contract.CriterionVerdict{{Criterion: DeadlineCriterion, Mode: contract.ModeVerifiable,
		Verdict: contract.VerdictFail, FailureClass: &class, Evidence: evidence}}
	out.GapTrajectory = append(out.GapTrajectory, contract.GapAttempt{Attempt: len(out.GapTrajectory) + 1,
		FailedCriteria: []contract.FailedCriterion{{Criterion: DeadlineCriterion, FailureClass: class}}})
	if out.ToolCalls == nil {
		out.ToolCalls = []string{}
	}
	if _, err := v.post.Send("R4a", "R4b", contract.TypeSubTaskOutcome, out.ParentTaskID, out); err != nil {
		return "", err
	}
	return contract.OutcomeFailed, nil
}

// TimeBudgetMS is the task's own time budget for GGS (ggs.TimeBudgeter): from the
// pipeline's start to the deadline R1 read in the task, in milliseconds on the
// pipeline's clock; ok is false when the task states none.
func (p *Pipeline) TimeBudgetMS() (float64, bool) {
	at, ok, err := ParseDeadline(p.task.Constraints.Deadline)
	if !ok || err != nil {
		return 0, false
	}
	return float64(at.Sub(p.started).Milliseconds()), true
}
