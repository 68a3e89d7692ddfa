package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentspine/spine/contract"
)

// manifest is a DispatchManifest waiting for its outcomes.
type manifest struct {
	seq     int64
	ids     []string         // subtask_ids, first occurrence order, without repeats
	arrived map[string]int64 // subtask_id → seq of the message that brought its outcome
}

// claim records that task claims subtask id at seq; a second task claiming it is a
// duplicate subtask ID (the runtime assigns IDs, so they never repeat across tasks).
func (a *Auditor) claim(id, taskID string, seq int64) {
	if id == "" {
		return
	}
	o, seen := a.owners[id]
	if !seen {
		a.owners[id] = owner{task: taskID, seq: seq}
		return
	}
	if o.task != taskID && a.once("dup\x00"+id+"\x00"+taskID) {
		a.raise(KindDuplicateSubtaskIDs, taskID, fmt.Sprintf("subtask %q belongs to task %q (seq %d) and again to task %q", id, o.task, o.seq, taskID), o.seq, seq)
	}
}

// onManifest opens a manifest. A task's earlier manifest that is still waiting closes
// here: R2 dispatched again before R4b's fan-in completed.
func (a *Auditor) onManifest(t *task, seq int64, ids []string) {
	a.closeManifests(t, seq, "before the next DispatchManifest")
	t.newRound()
	mf := &manifest{seq: seq, arrived: map[string]int64{}}
	count := map[string]int{}
	for _, id := range ids {
		count[id]++
		if count[id] == 1 {
			mf.ids = append(mf.ids, id)
			a.claim(id, t.id, seq)
		}
	}
	for _, id := range mf.ids {
		if count[id] > 1 && id != "" {
			a.raise(KindDuplicateSubtaskIDs, t.id, fmt.Sprintf("subtask %q is listed %d times in one DispatchManifest", id, count[id]), seq)
		}
	}
	t.manifests = append(t.manifests, mf)
}

// arrive marks subtask id's outcome as arrived at seq in the task's open manifests.
func (t *task) arrive(id string, seq int64) {
	for _, mf := range t.manifests {
		if _, listed := mf.arrived[id]; !listed && slices.Contains(mf.ids, id) {
			mf.arrived[id] = seq
		}
	}
}

// onOutcome takes R4a's SubTaskOutcome for R4b.
func (a *Auditor) onOutcome(t *task, seq int64, o outcomeMsg) {
	a.claim(o.SubTaskID, t.id, seq)
	t.arrive(o.SubTaskID, seq)
	a.checkAttempts(t, seq, o)
	a.checkVerdictEvidence(t, seq, o)
	if o.Status == contract.OutcomeFailed && t.failedSeq == 0 {
		t.failedSeq, t.failedSubtask = seq, o.SubTaskID
	}
}

// onReport takes R4b's ReplanRequest or OutcomeSummary: the outcomes it carries arrive,
// the fan-in it closes must be complete, and the round ends.
func (a *Auditor) onReport(t *task, seq int64, typ string, p reportMsg) {
	a.checkElapsed(t, seq, typ, p.ElapsedMS)
	var failed []string
	for _, o := range p.Outcomes {
		a.claim(o.SubTaskID, t.id, seq)
		t.arrive(o.SubTaskID, seq)
		a.checkAttempts(t, seq, o)
		a.checkVerdictEvidence(t, seq, o)
		if o.Status == contract.OutcomeFailed {
			failed = append(failed, o.SubTaskID)
		}
	}
	if typ == contract.TypeReplanRequest {
		a.checkCorrectionCount(t, seq, p)
		for _, id := range p.FailedSubTasks {
			if !slices.Contains(failed, id) {
				failed = append(failed, id)
			}
		}
		a.checkGateAtReport(t, seq, failed)
	}
	a.closeManifests(t, seq, "before R4b's "+typ)
	t.newRound()
}

// closeManifests closes every open manifest of the task; one whose outcomes have not
// all arrived is fan-in incomplete. closing is the seq of the message that closed it
// (0 at the end of the stream).
func (a *Auditor) closeManifests(t *task, closing int64, when string) {
	for _, mf := range t.manifests {
		var missing []string
		evidence := []int64{mf.seq, closing}
		for _, id := range mf.ids {
			if s, ok := mf.arrived[id]; ok {
				evidence = append(evidence, s)
			} else {
				missing = append(missing, id)
			}
		}
		if len(missing) > 0 {
			a.raise(KindFaninIncomplete, t.id, fmt.Sprintf("the DispatchManifest lists %d subtask(s); no outcome arrived for %s %s",
				len(mf.ids), strings.Join(missing, ", "), when), evidence...)
		}
	}
	t.manifests = nil
}
