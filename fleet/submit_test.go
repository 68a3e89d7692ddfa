package fleet

import (
	"context"
	"errors"
	"testing"
)

// TestSubmitWhosePublishFailsLeavesNoStatus: with no stream to take the task (the
// publish fails), Submit fails and has written nothing to the status bucket: no status,
// not even one written and then purged, so no task can sit "queued" with no message.
func TestSubmitWhosePublishFailsLeavesNoStatus(t *testing.T) {
	t.Parallel()
	_, c := testFleet(t)
	ctx := context.Background()
	if err := c.js.DeleteStream(ctx, TaskStream); err != nil {
		t.Fatal(err)
	}
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err == nil {
		t.Fatalf("Submit with no task stream: %+v, want an error", st)
	}
	t.Logf("Submit: %v", err)
	info, err := c.status.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.Values() != 0 {
		t.Errorf("the status bucket holds %d value(s) after a failed submit", info.Values())
	}
	if sts, err := c.List(ctx); err != nil || len(sts) != 0 {
		t.Errorf("List: %+v, %v", sts, err)
	}
}

// TestTaskQueuedWithoutStatusRuns: the task is queued but its status cannot be written
// (the status bucket is gone when Submit writes it). Submit succeeds, since the task is
// queued, and the worker that takes it records its status from the message and runs it.
func TestTaskQueuedWithoutStatusRuns(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	if err := c.js.DeleteKeyValue(ctx, StatusBucket); err != nil {
		t.Fatal(err)
	}
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatalf("Submit: %v (the task was queued)", err)
	}
	if err := c.setup(ctx); err != nil { // the bucket again, empty
		t.Fatal(err)
	}
	if _, err := c.Status(ctx, st.ID); !errors.Is(err, ErrNoTask) {
		t.Fatalf("before a worker took it: %v, want no status", err)
	}
	if info, err := c.js.Stream(ctx, TaskStream); err != nil || info.CachedInfo().State.Msgs != 1 {
		t.Fatalf("the queue: %v", err)
	}
	w, err := c.NewWorker(ctx, WorkerConfig{Name: "w1", WorkdirRoot: t.TempDir(), Drain: true,
		Prepare: DemoPrepare(rs, noSandbox())})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Run(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c.Status(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Finished || got.Outcome() != "accept" || got.Text != demoTask ||
		!got.SubmittedAt.Equal(st.SubmittedAt) || attemptStates(got) != Finished || w.Done() != 1 {
		t.Errorf("the task queued without a status: %s %q, attempts %s, done %d", got.State, got.Outcome(), attemptStates(got), w.Done())
	}
}
