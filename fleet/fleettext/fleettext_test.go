package fleettext

import (
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/snapshot"
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

// TestSnapshots: the table of snapshot ls, times in UTC; gc's summary, a dry run's with
// every object it would remove.
func TestSnapshots(t *testing.T) {
	var b strings.Builder
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("X", 3600))
	if err := Snapshots(&b, []snapshot.Info{{Root: "r1", Stored: at, Files: 2, Bytes: 30}}); err != nil {
		t.Fatal(err)
	}
	if want := "ROOT  STORED                FILES  BYTES\nr1    2026-01-02T02:04:05Z  2      30\n"; b.String() != want {
		t.Errorf("Snapshots:\n%s\nwant:\n%s", b.String(), want)
	}
	res := snapshot.GCResult{Manifests: 1, Blobs: 1, Bytes: 5, Kept: 2, Gone: []snapshot.Gone{{Root: "r0"}, {Blob: "b0", Bytes: 5}}}
	for _, tc := range []struct {
		dry  bool
		want string
	}{
		{false, "removed 1 snapshots and 1 file contents (5 bytes); kept 2 snapshots (3 traces read)\n"},
		{true, "would remove snapshot r0\nwould remove file content b0 (5 bytes)\nwould remove 1 snapshots and 1 file contents (5 bytes); kept 2 snapshots (3 traces read)\n"},
	} {
		b.Reset()
		SnapshotGC(&b, res, 3, tc.dry)
		if b.String() != tc.want {
			t.Errorf("SnapshotGC dry %v:\n%s\nwant:\n%s", tc.dry, b.String(), tc.want)
		}
	}
}
