package fleettext

import (
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/fleet"
)

// TestFollow: a finding is its finding line under its run; an end says whether the run
// reached its FinalResult, the error on one line.
func TestFollow(t *testing.T) {
	for _, tc := range []struct {
		e    fleet.FollowEvent
		want string
	}{
		{fleet.FollowEvent{Run: "t-1", Ended: true, Messages: 12}, "t-1: ended (FinalResult), 12 messages\n"},
		{fleet.FollowEvent{Run: "t-1", Ended: true, Messages: 1, Error: "worker\nlost"}, "t-1: ended without a FinalResult (worker lost), 1 message\n"},
		{fleet.FollowEvent{Run: "t-2", Finding: &contract.AuditReport{Severity: "error", Kind: "budget_overrun", TaskID: "t"}}, "t-2: "},
		{fleet.FollowEvent{Run: "t-3"}, ""},
	} {
		var b strings.Builder
		Follow(&b, tc.e)
		if got := b.String(); got != tc.want && !(strings.HasSuffix(tc.want, ": ") && strings.HasPrefix(got, tc.want) && strings.Contains(got, "budget_overrun")) {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}
