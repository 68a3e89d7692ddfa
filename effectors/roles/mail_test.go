package roles

import (
	"context"
	"testing"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
)

// TestRolesReadOnlyTheirContract: each role takes from its mailbox only what its
// contract says it receives, and says so when the mail is anything else. No model is
// called in any case.
func TestRolesReadOnlyTheirContract(t *testing.T) {
	r := newRig(t)
	p, err := New(r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	outcome := contract.SubTaskOutcome{SubTaskID: "s1", ParentTaskID: "t", Status: contract.OutcomeMatched}
	for _, tc := range []struct {
		name string
		mail func(*bus.Post)
		run  func(*bus.Post) error
		want string
	}{
		{"R3 given a manifest", func(post *bus.Post) {
			_, _ = post.Send("R2", "R3", contract.TypeDispatchManifest, "t", contract.DispatchManifest{TaskID: "t"})
		}, func(post *bus.Post) error {
			_, err := p.effectorAgent(context.Background(), &buffer{}, post, guard{}, &contract.Assignment{})
			return err
		}, "bus: R3 expected a SubTask or a CorrectionSignal, and its next message is a DispatchManifest from R2"},
		{"R3 with nothing to do", func(*bus.Post) {}, func(post *bus.Post) error {
			_, err := p.effectorAgent(context.Background(), &buffer{}, post, guard{}, &contract.Assignment{})
			return err
		}, "bus: R3 expected a SubTask or a CorrectionSignal, and its mailbox is empty"},
		{"R4a without its rubric", func(post *bus.Post) {
			_, _ = post.Send("R3", "R4a", contract.TypeExecutionResult, "t", contract.ExecutionResult{SubTaskID: "s1"})
		}, func(post *bus.Post) error {
			return p.skipped(post, 1)
		}, "bus: R4a expected a SubTask, and its next message is an ExecutionResult from R3"},
		{"R4b given an execution result", func(post *bus.Post) {
			_, _ = post.Send("R3", "R4b", contract.TypeExecutionResult, "t", contract.ExecutionResult{SubTaskID: "s1"})
		}, func(post *bus.Post) error {
			return p.metaValidate(context.Background(), &buffer{}, post)
		}, "bus: R4b received an ExecutionResult from R3; it takes a DispatchManifest and SubTaskOutcomes"},
		{"R4b given one outcome twice", func(post *bus.Post) {
			_, _ = post.Send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome)
			_, _ = post.Send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome)
		}, func(post *bus.Post) error {
			return p.metaValidate(context.Background(), &buffer{}, post)
		}, "bus: R4b received two SubTaskOutcomes for subtask s1"},
		{"R4b with no manifest", func(post *bus.Post) {
			_, _ = post.Send("R4a", "R4b", contract.TypeSubTaskOutcome, "t", outcome)
		}, func(post *bus.Post) error {
			return p.metaValidate(context.Background(), &buffer{}, post)
		}, "bus: R4b has no DispatchManifest with its TaskSpec to validate against"},
		{"R2 on a later round without a directive", func(post *bus.Post) {
			_, _ = post.Send("R1", "R2", contract.TypeTaskSpec, "t", contract.TaskSpec{TaskID: "t"})
		}, func(post *bus.Post) error {
			return p.r2.receive(post, 2)
		}, "bus: R2 expected a PlanDirective, and its next message is a TaskSpec from R1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			post := bus.NewPost(&bus.Log{})
			tc.mail(post)
			err := tc.run(post)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
	for role, s := range r.srv {
		if n := len(s.Requests()); n != 0 {
			t.Errorf("%s's model was called %d time(s)", role, n)
		}
	}
}
