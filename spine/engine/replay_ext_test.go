package engine_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

func init() {
	engine.ReplayTrace = func(t *testing.T, trace []byte, rs *ruleset.RuleSet) []byte {
		t.Helper()
		tf, err := tr.Read("t", bytes.NewReader(trace))
		if err != nil {
			t.Fatal(err)
		}
		rec, err := replay.NewRecording("t", tf)
		if err != nil {
			t.Fatal(err)
		}
		again := &tr.MemorySink{}
		// A recorded run that ended in an error (a cancellation, an effector's failure)
		// ends the replay in the same error; only the replay failing is fatal.
		if _, err := replay.Run(context.Background(), rec, rs, again); err != nil && replay.Failed(err) {
			t.Fatal(err)
		}
		return again.Bytes()
	}
	engine.TraceDiff = func(a, b []byte) string {
		if d := replay.CompareTraces(a, b, 0); d != nil {
			return d.String()
		}
		return ""
	}
}
