package engine

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Package replay owns replaying and comparing traces and imports this package, so the
// tests here that replay what the engine wrote borrow both through these hooks, which
// replay_ext_test.go (package engine_test) fills.
var (
	// ReplayTrace replays trace with rs and returns the trace the replay wrote.
	ReplayTrace func(t *testing.T, trace []byte, rs *ruleset.RuleSet) []byte
	// TraceDiff is the first difference between two traces, "" when they are identical.
	TraceDiff func(a, b []byte) string
)

// assertReplays replays recorded with rs and requires the same bytes and an intact chain.
func assertReplays(t *testing.T, recorded []byte, rs *ruleset.RuleSet) {
	t.Helper()
	again := ReplayTrace(t, recorded, rs)
	if d := TraceDiff(recorded, again); d != "" {
		t.Fatalf("the replay differs: %s", d)
	}
	for _, b := range [][]byte{recorded, again} {
		if rep, err := trace.VerifyChain(bytes.NewReader(b)); err != nil || !rep.Chained {
			t.Fatalf("the chain: %+v %v", rep, err)
		}
	}
}

// diffAt reports whether a TraceDiff names the line and field want ("line 11, field h").
func diffAt(d, want string) bool { return strings.HasPrefix(d, want+":") }
