package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/taskrun"
)

// TestRunThatCannotStartIsRetried: an attempt whose run does not start on its worker
// (its set-up fails; no trace exists) is not the task's result. The attempt is
// recorded as failed with its error and the task goes back to the queue; a later
// attempt that starts is accepted. A task no attempt can start ends, after
// MaxStartFailures attempts, with the last error, and says so.
func TestRunThatCannotStartIsRetried(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	if _, err := c.workConsumer(ctx, 400*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	flaky, err := c.Submit(ctx, demoTask+" (flaky worker)", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	never, err := c.Submit(ctx, demoTask+" (never starts)", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}

	demo := DemoPrepare(rs, noSandbox())
	// The flaky worker fails the task's set-up until the status records MaxStartFailures-1
	// failed attempts: counted there, not in calls, since an attempt overtaken by a
	// redelivery (see below) is not one of them.
	failed := func(id string) int {
		st, err := c.Status(ctx, id)
		if err != nil {
			t.Error(err)
		}
		n := 0
		for _, a := range st.Attempts {
			if a.State == Failed {
				n++
			}
		}
		return n
	}
	prepare := func(ctx context.Context, tk Task, work string) (taskrun.Config, error) {
		cfg, err := demo(ctx, tk, work)
		switch {
		case err != nil:
			return cfg, err
		case tk.ID == flaky.ID && failed(tk.ID) < MaxStartFailures-1:
			return cfg, errors.New("sandbox: cgroup busy")
		case tk.ID == never.ID:
			// taskrun itself refuses this before any trace exists.
			cfg.NoSandbox, cfg.Jail = true, nil
			cfg.AllowNet = []sandbox.NetRule{{Host: "example.com", Port: 443}}
		}
		return cfg, nil
	}
	stop := workers(t, c, 2, WorkerConfig{WorkdirRoot: t.TempDir(), Prepare: prepare})
	sts := waitFinished(t, c, []string{flaky.ID, never.ID}, 60*time.Second)
	stop()

	// The short ack wait keeps the pauses before a failed task's next attempt short; on
	// a busy machine it also lets a task be delivered again while an attempt still holds
	// it. The attempt so overtaken is superseded or refused, never accepted, and is left
	// out of the comparisons below.
	got := sts[0]
	kept := decisive(got.Attempts)
	states := attemptStates(Status{Attempts: kept})
	if got.Final == nil || got.Error != "" || len(kept) != MaxStartFailures ||
		states != strings.Repeat(Failed+" ", MaxStartFailures-1)+Finished {
		t.Fatalf("flaky: final %+v, error %q, attempts %s", got.Final, got.Error, attemptStates(got))
	}
	for _, a := range kept[:MaxStartFailures-1] {
		if a.Error != "sandbox: cgroup busy" || a.Trace != "" {
			t.Errorf("flaky: failed attempt %d: error %q, trace %q", a.N, a.Error, a.Trace)
		}
	}
	if _, a, err := c.Trace(ctx, got.ID, 0); err != nil || a.N != kept[MaxStartFailures-1].N {
		t.Errorf("flaky: accepted trace: attempt %d, %v", a.N, err)
	}

	got = sts[1]
	states = attemptStates(Status{Attempts: decisive(got.Attempts)})
	if got.Final != nil || got.Outcome() != "error" || states != strings.TrimSpace(strings.Repeat(Failed+" ", MaxStartFailures)) ||
		!strings.Contains(got.Error, "no run could start in 3 attempts; the last: --allow-net needs the sandbox") {
		t.Fatalf("never: final %+v, outcome %q, error %q, attempts %s", got.Final, got.Outcome(), got.Error, attemptStates(got))
	}
	if _, _, err := c.Trace(ctx, got.ID, 0); err == nil || !strings.Contains(err.Error(), "its run did not start: --allow-net needs the sandbox") {
		t.Errorf("never: trace: %v", err)
	}
	// Both tasks' runs ended for the fleet's Auditor: the flaky one's on its FinalResult,
	// the never-started one's on its worker's word, with the task's error.
	a, _ := got.AcceptedAttempt()
	fctx, cancel := context.WithTimeout(ctx, time.Minute) // a bound on a failure
	defer cancel()
	ended := map[string]string{}
	err = c.FollowAudit(fctx, audit.DefaultConfig(), true, func(e FollowEvent) {
		if e.Ended {
			ended[e.Run] = e.Error
			if len(ended) == 2 {
				cancel()
			}
		}
	})
	if err != nil || len(ended) != 2 || ended[a.RunID] != got.Error {
		t.Errorf("the follower saw %d run(s) end (%v), want 2 with %s's error %q: %v", len(ended), ended, a.RunID, got.Error, err)
	}
}

// decisive is the attempts that count for a task's end: those neither superseded nor
// refused (overtaken by a redelivery of the task).
func decisive(as []Attempt) []Attempt {
	var out []Attempt
	for _, a := range as {
		if a.State != Superseded && a.State != Refused {
			out = append(out, a)
		}
	}
	return out
}

func attemptStates(st Status) string {
	var s []string
	for _, a := range st.Attempts {
		s = append(s, a.State)
	}
	return strings.Join(s, " ")
}
