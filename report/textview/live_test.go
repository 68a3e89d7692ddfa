package textview

import (
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// TestLiveLines: a live finding is one line sent to the operator; a reload is said, a
// failed one with its error as a block; other events say nothing; an event written is
// shown on the timeline as read back.
func TestLiveLines(t *testing.T) {
	f := contract.AuditReport{Severity: "warning", Kind: "excessive_retries", TaskID: "t1", Evidence: []int64{4, 9}, Message: "five\ncorrections"}
	if got, want := LiveFinding(f), "R6   → Op   AuditReport     [warning] excessive_retries · task t1 · seq 4,9 · five\ncorrections"; got != want {
		t.Errorf("LiveFinding: %q, want %q", got, want)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var b strings.Builder
	notice := ReloadNotices(&b)
	notice(&trace.Event{Seq: 3, Time: at, Kind: trace.KindRulesReloaded, Body: trace.Reload{Path: "r.yaml", Hash: "sha256:ab"}})
	notice(&trace.Event{Seq: 4, Time: at, Kind: trace.KindRulesReloadFailed, Body: trace.Reload{Path: "r.yaml", Error: "r.yaml:2:1: bad\n  | x"}})
	notice(&trace.Event{Seq: 5, Time: at, Kind: trace.KindTransition, Body: trace.Transition{From: "a", To: "b"}})
	want := "rules     reloaded r.yaml (sha256:ab)\nrules     r.yaml did not load; the running rules stay:\nr.yaml:2:1: bad\n  | x\n"
	if b.String() != want {
		t.Errorf("ReloadNotices:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	(&Timeline{W: &b}).Written()(&trace.Event{Seq: 3, Time: at, Kind: trace.KindRulesReloaded, Body: trace.Reload{Path: "r.yaml", Hash: "sha256:ab"}})
	if !strings.Contains(b.String(), "rules     reloaded r.yaml (sha256:ab)") {
		t.Errorf("Written: %q", b.String())
	}
}
