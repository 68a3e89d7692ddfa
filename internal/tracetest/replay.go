// Package tracetest holds checks on recorded traces that tests of several packages share.
// It is for tests only and must not be imported by production code.
package tracetest

import (
	"context"
	"testing"

	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"
)

// AssertReplays replays a trace from its recording with rs and requires the same bytes.
func AssertReplays(t testing.TB, trace []byte, rs *ruleset.RuleSet) {
	t.Helper()
	o := replay.CheckBytes(context.Background(), "live", trace, replay.CheckOptions{Rules: rs, Compare: true})
	switch {
	case o.Failed != nil:
		t.Fatalf("reading the trace: %v", o.Failed)
	case o.Diff != nil:
		t.Fatalf("the replay differs from the live trace: %s", o.Diff)
	}
}
