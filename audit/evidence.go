package audit

import (
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
)

// plannedSubTask is what the SubTask message that dispatched a subtask says of its plan.
type plannedSubTask struct {
	seq   int64
	tools []string
}

// plan remembers the tools a SubTask's plan names, for its outcome's evidence.
func (t *task) plan(seq int64, p subTaskMsg) {
	if _, seen := t.plans[p.SubTaskID]; !seen && p.SubTaskID != "" {
		t.plans[p.SubTaskID] = plannedSubTask{seq: seq, tools: p.Tools}
	}
}

// checkVerdictEvidence reports an outcome with a criterion judged pass while its
// tool_calls show no successful action: calls were made and each was refused or failed
// (read with contract.ReadToolCall), or none was made although the SubTask's plan named
// tools. An outcome with no calls whose plan is unknown or named no tools is judged on
// its text, and is not reported. Once per subtask: R4b's report repeats the outcome.
func (a *Auditor) checkVerdictEvidence(t *task, seq int64, o outcomeMsg) {
	var passed []string
	for _, v := range o.CriteriaVerdicts {
		if v.Verdict == contract.VerdictPass {
			passed = append(passed, v.Criterion)
		}
	}
	if len(passed) == 0 {
		return
	}
	judged := fmt.Sprintf("%q judged pass", passed[0])
	if len(passed) > 1 {
		judged = fmt.Sprintf("%d criteria judged pass (the first %q)", len(passed), passed[0])
	}
	var msg string
	evidence := []int64{seq}
	if len(o.ToolCalls) == 0 {
		p, known := t.plans[o.SubTaskID]
		if !known || len(p.tools) == 0 {
			return
		}
		msg = fmt.Sprintf("subtask %q: %s, but its plan named %s and no tool was called", o.SubTaskID, judged, strings.Join(p.tools, ", "))
		evidence = append(evidence, p.seq)
	} else {
		var refused, failed int
		for _, c := range o.ToolCalls {
			switch contract.ReadToolCall(c) {
			case contract.ToolCallSucceeded:
				return
			case contract.ToolCallRefused:
				refused++
			default:
				failed++
			}
		}
		msg = fmt.Sprintf("subtask %q: %s, but none of its %d tool call(s) succeeded (%d refused, %d failed)", o.SubTaskID, judged, len(o.ToolCalls), refused, failed)
	}
	if a.once("evidence\x00" + t.id + "\x00" + o.SubTaskID) {
		a.raise(KindVerdictWithoutEvidence, t.id, msg, evidence...)
	}
}
