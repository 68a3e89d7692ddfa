package memtext

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/memory"
)

// TestFeedback: each record beside the outcome it is against, then the outcome's
// potentials, a decision that rounds to zero shown as +0.000.
func TestFeedback(t *testing.T) {
	var b strings.Builder
	rec := memory.Record{Megram: contract.Megram{ID: "fb1", State: "negative_feedback", Space: "intent:x", Entity: "env:local", F: 1, Sigma: -1, K: 0.5}, Origin: "user:feedback"}
	out := memory.Record{Megram: contract.Megram{ID: "m1", Space: "intent:x", Entity: "env:local"}}
	Feedback(&b, "/mem", []memory.Record{rec}, []memory.Record{out}, []contract.Potentials{{Attention: 0.25, Decision: -0.0001, Action: "Caution"}})
	want := "recorded 1 negative feedback record(s) in /mem:\n" +
		"  fb1 negative_feedback (intent:x, env:local) f=1 σ=-1 k=0.5 origin=user:feedback against m1\n" +
		"  (intent:x, env:local) now: attention 0.250, decision +0.000 → Caution\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestShowAndCorrupt: --json writes each value as a JSON line (HTML escaped, as the
// store's verbs always wrote), text otherwise; a damaged store's error points to verify
// and repair, any other is left as it is.
func TestShowAndCorrupt(t *testing.T) {
	var b strings.Builder
	if err := Show(&b, true, func() { t.Error("text with --json") }, "<a>", "b"); err != nil || b.String() != "\"\\u003ca\\u003e\"\n\"b\"\n" {
		t.Errorf("Show --json: %v, %q", err, b.String())
	}
	shown := false
	if err := Show(&b, false, func() { shown = true }, 1); err != nil || !shown {
		t.Errorf("Show: %v, text shown %v", err, shown)
	}
	plain := errors.New("no such store")
	if got := Corrupt(plain, "/mem"); got != plain {
		t.Errorf("Corrupt(plain) = %v", got)
	}
	damaged := &memory.CorruptError{Dir: "/mem"}
	if got := Corrupt(damaged, "/mem"); !errors.Is(got, damaged) || !strings.HasSuffix(got.Error(), "\nsee all of it: spine memory verify --db /mem; repair it: spine memory repair --db /mem") {
		t.Errorf("Corrupt(damaged) = %v", got)
	}
	if got := Corrupt(nil, "/mem"); got != nil {
		t.Errorf("Corrupt(nil) = %v", got)
	}
}
