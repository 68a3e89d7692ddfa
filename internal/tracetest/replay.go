// Package tracetest holds checks on recorded traces that tests of several packages share.
// It is for tests only and must not be imported by production code.
package tracetest

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	tr "github.com/agentspine/spine/spine/trace"
)

// AssertReplays replays a trace from its recording with rs and requires the same bytes.
func AssertReplays(t testing.TB, trace []byte, rs *engine.RuleSet) {
	t.Helper()
	tf, err := tr.Read("live", bytes.NewReader(trace))
	if err != nil {
		t.Fatalf("reading the trace: %v", err)
	}
	rec, err := replay.NewRecording("live", tf)
	if err != nil {
		t.Fatal(err)
	}
	sink := &tr.MemorySink{}
	_, _ = replay.Run(context.Background(), rec, rs, sink)
	if d := replay.CompareTraces(trace, sink.Bytes(), 0); d != nil {
		t.Fatalf("the replay differs from the live trace: %s", d)
	}
}
