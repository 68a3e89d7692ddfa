package fleet

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

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
	var mu sync.Mutex
	prepared := map[string]int{}
	prepare := func(ctx context.Context, tk Task, work string) (taskrun.Config, error) {
		mu.Lock()
		prepared[tk.ID]++
		n := prepared[tk.ID]
		mu.Unlock()
		cfg, err := demo(ctx, tk, work)
		switch {
		case err != nil:
			return cfg, err
		case tk.ID == flaky.ID && n <= MaxStartFailures-1:
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

	got := sts[0]
	states := attemptStates(got)
	if got.Final == nil || got.Error != "" || len(got.Attempts) != MaxStartFailures ||
		states != strings.Repeat(Failed+" ", MaxStartFailures-1)+Finished {
		t.Fatalf("flaky: final %+v, error %q, attempts %s", got.Final, got.Error, states)
	}
	for _, a := range got.Attempts[:MaxStartFailures-1] {
		if a.Error != "sandbox: cgroup busy" || a.Trace != "" {
			t.Errorf("flaky: failed attempt %d: error %q, trace %q", a.N, a.Error, a.Trace)
		}
	}
	if _, a, err := c.Trace(ctx, got.ID, 0); err != nil || a.N != got.Attempts[MaxStartFailures-1].N {
		t.Errorf("flaky: accepted trace: attempt %d, %v", a.N, err)
	}

	got = sts[1]
	states = attemptStates(got)
	if got.Final != nil || got.Outcome() != "error" || states != strings.TrimSpace(strings.Repeat(Failed+" ", MaxStartFailures)) ||
		!strings.Contains(got.Error, "no run could start in 3 attempts; the last: --allow-net needs the sandbox") {
		t.Fatalf("never: final %+v, outcome %q, error %q, attempts %s", got.Final, got.Outcome(), got.Error, states)
	}
	if _, _, err := c.Trace(ctx, got.ID, 0); err == nil || !strings.Contains(err.Error(), "its run did not start: --allow-net needs the sandbox") {
		t.Errorf("never: trace: %v", err)
	}
}

func attemptStates(st Status) string {
	var s []string
	for _, a := range st.Attempts {
		s = append(s, a.State)
	}
	return strings.Join(s, " ")
}
