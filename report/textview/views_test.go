package textview

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/runlog"
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

// TestSignatureNote: a signed trace is said signed, verified or not; an unsigned one says
// nothing, and with keys is refused.
func TestSignatureNote(t *testing.T) {
	signed := trace.SignatureReport{Signed: true, Key: "SHA256:abc", Lines: 9}
	for _, tc := range []struct {
		r        trace.SignatureReport
		verified bool
		want     string
	}{
		{signed, true, "signed by SHA256:abc (verified)"},
		{signed, false, "signed by SHA256:abc (not verified: pass --verify-key)"},
		{trace.SignatureReport{}, false, ""},
	} {
		if got := signatureText(tc.r, tc.verified); got != tc.want {
			t.Errorf("%+v, verified %v: %q, want %q", tc.r, tc.verified, got, tc.want)
		}
	}
	tf, err := trace.Read("unsigned", strings.NewReader(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header","format":"spine-trace/1"}`+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if note, err := SignatureNote(tf, nil); note != "" || err != nil {
		t.Errorf("unsigned, no keys: %q, %v", note, err)
	}
	var se *trace.SignatureError
	if _, err := SignatureNote(tf, trace.KeyRing{}); !errors.As(err, &se) {
		t.Errorf("unsigned, with keys: %v, want a SignatureError", err)
	}
}

// TestFindingsJSON: one line a finding, headed by its trace, HTML characters escaped as
// encoding/json does.
func TestFindingsJSON(t *testing.T) {
	var b strings.Builder
	fs := []contract.AuditReport{{Severity: "error", Kind: "budget_overrun", Message: "Ω <= θ"}, {Severity: "warning", Kind: "excessive_retries"}}
	if err := FindingsJSON(&b, "a.jsonl", fs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], `{"trace":"a.jsonl","`) || !strings.Contains(lines[0], `\u003c=`) || !strings.Contains(lines[1], `"kind":"excessive_retries"`) {
		t.Errorf("FindingsJSON:\n%s", b.String())
	}
}

// TestLossTablesAndJSON: no trace is an empty JSON array; two tables are apart by one
// blank line, each headed by its trace.
func TestLossTablesAndJSON(t *testing.T) {
	var b strings.Builder
	if err := LossJSON(&b, []runlog.Loss{}); err != nil || b.String() != "[]\n" {
		t.Errorf("no trace: %q, %v", b.String(), err)
	}
	b.Reset()
	LossTables(&b, []runlog.Loss{{Trace: "a.jsonl"}, {Trace: "b.jsonl"}})
	var one strings.Builder
	LossTable(&one, runlog.Loss{Trace: "a.jsonl"})
	if !strings.HasPrefix(b.String(), one.String()+"\n") || !strings.Contains(b.String(), "b.jsonl") {
		t.Errorf("two tables:\n%s", b.String())
	}
}
