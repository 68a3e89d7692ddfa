package roles

import (
	"context"
	"fmt"
	"sort"
	"sync"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine"
)

// dispatch runs the plan's subtasks by ascending sequence number, the subtasks of one
// number in parallel (at most Parallel at once). Each subtask journals into its own
// buffer; when its group has finished the buffers are written in plan order, so the trace
// does not depend on which subtask finished first. When a group has a failed subtask the
// later groups, which depend on it, are not run: their outcomes say so. Outcomes are
// returned in plan order; when ctx is cancelled they are returned as far as they got,
// with the error.
func (p *Pipeline) dispatch(ctx context.Context, rec recorder, dp dispatchPlan) ([]contract.SubTaskOutcome, error) {
	outcomes := make([]contract.SubTaskOutcome, len(dp.assignments))
	failedSeq := 0
	for _, group := range groups(dp.assignments) {
		if failedSeq != 0 {
			for _, i := range group {
				outcomes[i] = p.skipped(rec, dp.assignments[i], failedSeq)
			}
			continue
		}
		bufs := make([]buffer, len(group))
		errs := make([]error, len(group))
		sem := make(chan struct{}, p.cfg.Parallel)
		var wg sync.WaitGroup
		for k, i := range group {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				outcomes[i], errs[k] = p.fastLoop(ctx, &bufs[k], dp.assignments[i], dp)
			}()
		}
		wg.Wait()
		for k := range group {
			bufs[k].flush(rec)
		}
		for _, err := range errs {
			if err != nil {
				return outcomes, err
			}
		}
		if err := ctx.Err(); err != nil {
			return outcomes, err
		}
		for _, i := range group {
			if outcomes[i].Status == contract.OutcomeFailed {
				failedSeq = dp.assignments[i].Sequence
			}
		}
	}
	return outcomes, nil
}

// groups lists the assignment indices by ascending sequence, plan order within one.
func groups(as []Assignment) [][]int {
	bySeq := map[int][]int{}
	var seqs []int
	for i, a := range as {
		if _, ok := bySeq[a.Sequence]; !ok {
			seqs = append(seqs, a.Sequence)
		}
		bySeq[a.Sequence] = append(bySeq[a.Sequence], i)
	}
	sort.Ints(seqs)
	out := make([][]int, len(seqs))
	for k, s := range seqs {
		out[k] = bySeq[s]
	}
	return out
}

// skipped is the outcome the subtask's effector agent (R4a) reports for a subtask that was
// not run because an earlier step failed. It carries no verdict: GGS counts it as one
// failed criterion of no class.
func (p *Pipeline) skipped(rec recorder, a Assignment, failedSeq int) contract.SubTaskOutcome {
	reason := fmt.Sprintf("not run: it follows sequence %d, which failed", failedSeq)
	o := contract.SubTaskOutcome{SubTaskID: a.SubTaskID, ParentTaskID: p.task.TaskID, Status: contract.OutcomeFailed,
		FailureReason: &reason, CriteriaVerdicts: []contract.CriterionVerdict{}, GapTrajectory: []contract.GapAttempt{},
		ToolCalls: []string{}}
	m := o
	rec.message(spine.Message{From: "R4a", To: "R4b", Type: contract.TypeSubTaskOutcome, Payload: &m})
	return o
}
