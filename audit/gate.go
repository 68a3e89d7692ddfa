package audit

import (
	"fmt"
	"strings"
)

// R4b's fan-in gate: when any subtask of a round failed, R4b sends its ReplanRequest
// without calling its model. A round runs from a DispatchManifest or PlanDirective to
// R4b's report.

// newRound forgets the fan-in gate state of the previous round.
func (t *task) newRound() {
	t.failedSeq, t.failedSubtask, t.r4bCalls = 0, "", nil
}

// onR4bModelCall reports R4b's model call once a subtask of the round has failed, or
// keeps it in case R4b's report shows a failure it had not published before.
func (a *Auditor) onR4bModelCall(t *task, seq int64) {
	if t.failedSeq != 0 {
		a.raise(KindBoundaryViolation, t.id, fmt.Sprintf("R4b called its model after subtask %q failed; the fan-in gate forbids a model call when any subtask failed", t.failedSubtask), t.failedSeq, seq)
		return
	}
	t.r4bCalls = append(t.r4bCalls, seq)
}

// checkGateAtReport reports R4b's model calls in a round whose ReplanRequest names
// failed subtasks.
func (a *Auditor) checkGateAtReport(t *task, seq int64, failed []string) {
	if len(failed) == 0 || len(t.r4bCalls) == 0 {
		return
	}
	evidence := append(t.r4bCalls, seq)
	a.raise(KindBoundaryViolation, t.id, fmt.Sprintf("R4b called its model %d time(s) in a round whose ReplanRequest reports failed subtask(s) %s; the fan-in gate forbids a model call when any subtask failed",
		len(t.r4bCalls), strings.Join(failed, ", ")), evidence...)
	t.r4bCalls = nil
}
