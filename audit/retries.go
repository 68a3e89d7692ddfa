package audit

import "fmt"

// onCorrection counts R4a's CorrectionSignals per subtask against the retry budget.
func (a *Auditor) onCorrection(t *task, seq int64, subtask string) {
	t.corrections[subtask] = append(t.corrections[subtask], seq)
	n := len(t.corrections[subtask])
	if n > a.cfg.MaxCorrections && a.once("retries\x00"+t.id+"\x00"+subtask) {
		a.raise(KindExcessiveRetries, t.id, fmt.Sprintf("subtask %q: %d CorrectionSignals from R4a; the retry budget is %d", subtask, n, a.cfg.MaxCorrections), t.corrections[subtask]...)
	}
}

// checkAttempts compares a SubTaskOutcome's gap_trajectory (one entry per attempt) with
// the retry budget.
func (a *Auditor) checkAttempts(t *task, seq int64, o outcomeMsg) {
	attempts := len(o.GapTrajectory)
	if attempts > a.cfg.MaxCorrections+1 && a.once("retries\x00"+t.id+"\x00"+o.SubTaskID) {
		evidence := append([]int64{seq}, t.corrections[o.SubTaskID]...)
		a.raise(KindExcessiveRetries, t.id, fmt.Sprintf("subtask %q took %d attempts; the retry budget allows %d", o.SubTaskID, attempts, a.cfg.MaxCorrections+1), evidence...)
	}
}

// checkCorrectionCount compares a ReplanRequest's correction_count with the retry budget
// of the subtasks it reports (at least one).
func (a *Auditor) checkCorrectionCount(t *task, seq int64, p reportMsg) {
	n := max(len(p.Outcomes), 1)
	if p.CorrectionCount > a.cfg.MaxCorrections*n {
		a.raise(KindExcessiveRetries, t.id, fmt.Sprintf("R4b reports correction_count %d over %d subtask(s); the retry budget allows %d per subtask",
			p.CorrectionCount, n, a.cfg.MaxCorrections), seq)
	}
}
