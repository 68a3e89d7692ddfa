package replay

import (
	"context"
	"testing"
)

// TestReplayResumedTwiceAtOneHook replays a fleet trace whose run was resumed, killed
// before its next line, and resumed again: two resumed lines stand in a row before the
// same effector call, and the replay writes both where they were made.
func TestReplayResumedTwiceAtOneHook(t *testing.T) {
	o := Check(context.Background(), "testdata/resumed_twice.trace.jsonl", CheckOptions{Compare: true})
	if !o.OK() {
		t.Fatalf("the replay differs: %+v", o)
	}
}
