package memtext

import (
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
