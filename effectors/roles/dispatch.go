package roles

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/agentspine/spine/spine/trace"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
)

// dispatch is the runtime's dispatcher. It takes R3's mail — the round's SubTasks, which
// R2 addressed to R3 — and gives each subtask an effector agent of its own: an executor
// and a validator with private mailboxes on a branch of the post. The SubTask is
// delivered to both, because R4a's rubric travels with the dispatch. The agent's record
// goes to a buffer of its own.
//
// Subtasks run by ascending sequence number. Those of one number run in parallel, at most
// Parallel at once. The group's buffers are written in plan order, so the trace does not
// depend on which subtask finished first: the first unfinished subtask's record is
// written as it is made, the others' once every subtask before theirs has finished. When a group has a failed
// subtask, the later groups depend on it and are not run: their validators say so to R4b.
// When ctx is cancelled, dispatch returns the error once the running group has stopped.
func (p *Pipeline) dispatch(ctx context.Context, rec recorder, post *bus.Post, g guard) error {
	var mail []trace.Message
	var as []contract.Assignment
	for {
		m, ok := post.Next("R3")
		if !ok {
			break
		}
		var a contract.Assignment
		if m.Type != contract.TypeSubTask {
			return fmt.Errorf("bus: R3's mail holds %s from %s before dispatch; only SubTasks are dispatched", bus.Article(m.Type), m.From)
		}
		if err := bus.Decode(m, &a); err != nil {
			return err
		}
		mail, as = append(mail, m), append(as, a)
	}
	failedSeq := 0
	for _, group := range groups(as) {
		journal := newGroup(rec, len(group))
		bufs := journal.bufs
		errs := make([]error, len(group))
		statuses := make([]string, len(group))
		branches := make([]*bus.Post, len(group))
		if failedSeq != 0 {
			for k, i := range group {
				branch := post.Branch(&bufs[k], "R3", "R4a")
				branches[k] = branch
				branch.Deliver("R4a", mail[i])
				errs[k] = p.skipped(branch, failedSeq)
				journal.finished(k)
			}
		} else {
			sem := make(chan struct{}, p.cfg.Parallel)
			var wg sync.WaitGroup
			for k, i := range group {
				branch := post.Branch(&bufs[k], "R3", "R4a")
				branches[k] = branch
				branch.Deliver("R3", mail[i])
				branch.Deliver("R4a", mail[i])
				if rerunning(ctx) {
					statuses[k], errs[k] = p.effectorAgent(ctx, &bufs[k], branch, g, &as[i])
					journal.finished(k)
					continue
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					sem <- struct{}{}
					defer func() { <-sem }()
					defer journal.finished(k)
					statuses[k], errs[k] = p.effectorAgent(ctx, &bufs[k], branch, g, &as[i])
				}()
			}
			wg.Wait()
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		for k, i := range group {
			if left := branches[k].UnreadOwn(); len(left) > 0 {
				return fmt.Errorf("subtask %s's effector agent ended with mail unread: %s", as[i].SubTaskID, strings.Join(left, "; "))
			}
			if statuses[k] == contract.OutcomeFailed && failedSeq == 0 {
				failedSeq = as[i].Sequence
			}
		}
	}
	return nil
}

// groups lists the assignment indices by ascending sequence, plan order within one.
func groups(as []contract.Assignment) [][]int {
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

// skipped is R4a's word on a subtask that was not run because an earlier step failed:
// a failed outcome with no verdict, which GGS counts as one failed criterion of no class.
func (p *Pipeline) skipped(post *bus.Post, failedSeq int) error {
	a, _, err := bus.Receive[contract.Assignment](post, "R4a", contract.TypeSubTask)
	if err != nil {
		return err
	}
	o := unfinished(a.SubTaskID, a.ParentTaskID, fmt.Sprintf("not run: it follows sequence %d, which failed", failedSeq))
	_, err = post.Send("R4a", "R4b", contract.TypeSubTaskOutcome, a.ParentTaskID, o)
	return err
}

// unfinished is the failed outcome of a subtask that has no verdict: not run, not
// finished, or never reported. GGS counts it as one failed criterion of no class.
func unfinished(id, taskID, reason string) contract.SubTaskOutcome {
	return contract.SubTaskOutcome{SubTaskID: id, ParentTaskID: taskID, Status: contract.OutcomeFailed,
		FailureReason: &reason, CriteriaVerdicts: []contract.CriterionVerdict{}, GapTrajectory: []contract.GapAttempt{},
		ToolCalls: []string{}}
}
