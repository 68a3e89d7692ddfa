package audit

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agentspine/spine/contract"
)

// The Auditor's narrow payload views read the same JSON names as the contract types.
func TestPayloadViewsMatchContract(t *testing.T) {
	cls := contract.FailureLogical
	o := contract.SubTaskOutcome{SubTaskID: "a", ParentTaskID: "t", Status: contract.OutcomeFailed,
		GapTrajectory:    []contract.GapAttempt{{Attempt: 1}, {Attempt: 2}},
		CriteriaVerdicts: []contract.CriterionVerdict{{Criterion: "c", Verdict: "fail", FailureClass: &cls}},
		ToolCalls:        []string{"shell:make → ok"}}
	for _, tc := range []struct {
		in   any
		into any
		want any
	}{
		{contract.TaskSpec{TaskID: "t", Intent: "x"}, &taskSpecMsg{}, &taskSpecMsg{TaskID: "t"}},
		{contract.SubTask{SubTaskID: "a", ParentTaskID: "t"}, &subTaskMsg{}, &subTaskMsg{SubTaskID: "a", ParentTaskID: "t"}},
		{contract.DispatchManifest{TaskID: "t", SubTaskIDs: []string{"a", "b"}}, &manifestMsg{}, &manifestMsg{TaskID: "t", SubTaskIDs: []string{"a", "b"}}},
		{contract.CorrectionSignal{SubTaskID: "a", AttemptNumber: 2}, &correctionMsg{}, &correctionMsg{SubTaskID: "a"}},
		{contract.ReplanRequest{TaskID: "t", FailedSubTasks: []string{"a"}, CorrectionCount: 3, ElapsedMS: 9, Outcomes: []contract.SubTaskOutcome{o}}, &reportMsg{},
			&reportMsg{TaskID: "t", FailedSubTasks: []string{"a"}, CorrectionCount: 3, ElapsedMS: 9, Outcomes: []outcomeMsg{{SubTaskID: "a", ParentTaskID: "t", Status: "failed",
				GapTrajectory:    []json.RawMessage{json.RawMessage(`{"attempt":1,"failed_criteria":null}`), json.RawMessage(`{"attempt":2,"failed_criteria":null}`)},
				CriteriaVerdicts: []verdictMsg{{Criterion: "c", Verdict: "fail"}}, ToolCalls: []string{"shell:make → ok"}}}}},
		{contract.FinalResult{TaskID: "t", Replans: 2}, &finalMsg{}, &finalMsg{TaskID: "t", Replans: 2}},
	} {
		raw, err := json.Marshal(tc.in)
		if err != nil {
			t.Fatal(err)
		}
		if err := decodeObject(raw, tc.into); err != nil {
			t.Fatalf("%T: %v", tc.in, err)
		}
		if !reflect.DeepEqual(tc.into, tc.want) {
			t.Errorf("%T decoded as %+v, want %+v", tc.in, tc.into, tc.want)
		}
	}
	raw, _ := json.Marshal(contract.PlanDirective{TaskID: "t", Directive: "refine", Loss: contract.Loss{D: 0.5, L: 0.25}})
	var d directiveMsg
	if err := decodeObject(raw, &d); err != nil || d.TaskID != "t" || d.Directive != "refine" || d.Loss.D != 0.5 || d.Loss.L != 0.25 {
		t.Errorf("PlanDirective decoded as %+v (%v)", d, err)
	}
}
