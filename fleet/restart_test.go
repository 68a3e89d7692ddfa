package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/agentspine/spine/taskrun"
)

// restartServer shuts srv down and starts it again on the same directory and port, so
// that clients reconnect to the URL they know. forgetConsumer removes the work
// consumer's state from the store first, as a SIGKILLed server loses it when it had not
// written it yet: the consumer comes back with its deliveries forgotten, and the queued
// task is delivered again as if for the first time (JetStream's delivery count 1).
func restartServer(t *testing.T, srv *Server, dir string, forgetConsumer bool) *Server {
	t.Helper()
	return stopServer(t, srv, dir)(forgetConsumer)
}

// stopServer shuts srv down and returns what starts it again (see restartServer).
func stopServer(t *testing.T, srv *Server, dir string) (again func(forgetConsumer bool) *Server) {
	t.Helper()
	u, err := url.Parse(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		t.Fatal(err)
	}
	srv.Shutdown()
	return func(forgetConsumer bool) *Server {
		return startAgain(t, dir, port, forgetConsumer)
	}
}

func startAgain(t *testing.T, dir string, port int, forgetConsumer bool) *Server {
	t.Helper()
	if forgetConsumer {
		state := filepath.Join(dir, "jetstream", "$G", "streams", TaskStream, "obs", WorkConsumer, "o.dat")
		if err := os.Remove(state); err != nil {
			t.Fatalf("forgetting the consumer's deliveries: %v", err)
		}
	}
	s, err := StartServer(ServerConfig{Dir: dir, Port: port})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestAttemptsStayDistinctOverServerRestart: a task's first attempt fails to start and
// the task goes back to the queue; the server then restarts having forgotten the
// consumer's deliveries, so JetStream delivers the task again with a delivery count of
// 1. The second attempt is still attempt 2, with its own run id, work dir and trace
// object: the number comes from the task's status, not from the delivery count.
func TestAttemptsStayDistinctOverServerRestart(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	dir := t.TempDir()
	srv := testServer(t, dir)
	c := testClient(t, srv.URL())
	ctx := context.Background()
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var first *Worker
	first, err = c.NewWorker(ctx, WorkerConfig{Name: "w1", WorkdirRoot: root,
		Prepare: func(context.Context, Task, string) (taskrun.Config, error) {
			first.Stop() // one attempt only
			return taskrun.Config{}, errors.New("sandbox: cgroup busy")
		}})
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := c.Status(ctx, st.ID); err != nil || got.State != Queued || attemptStates(got) != Failed {
		t.Fatalf("after the failed start: %+v, %v", got, err)
	}
	c.Close()

	srv = restartServer(t, srv, dir, true)
	defer srv.Shutdown()
	c = testClient(t, srv.URL())
	defer c.Close()
	second, err := c.NewWorker(ctx, WorkerConfig{Name: "w2", WorkdirRoot: root, Drain: true,
		Prepare: DemoPrepare(rs, noSandbox())})
	if err != nil {
		t.Fatal(err)
	}
	if err := second.Run(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := c.Status(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != Finished || attemptStates(got) != Failed+" "+Finished {
		t.Fatalf("after the restart: %s, attempts %s", got.State, attemptStates(got))
	}
	a1, a2 := got.Attempts[0], got.Attempts[1]
	if a1.N != 1 || a2.N != 2 || a1.RunID == a2.RunID || a2.RunID != fmt.Sprintf("%s-2", st.ID) ||
		a2.Trace != st.ID+"/2" || got.Accepted != 2 {
		t.Fatalf("attempts are not distinct: %+v", got.Attempts)
	}
	trace, a, err := c.Trace(ctx, st.ID, 0)
	if err != nil || a.N != 2 {
		t.Fatalf("accepted trace: attempt %d, %v", a.N, err)
	}
	if _, err := os.Stat(filepath.Join(root, st.ID, "2", "trace.jsonl")); err != nil {
		t.Errorf("attempt 2's work dir: %v", err)
	}
	if want := `"fleet_attempt":"2"`; !bytes.Contains(trace, []byte(want)) {
		t.Errorf("the trace header does not say %s", want)
	}
}

func TestReconnectDelay(t *testing.T) {
	for _, c := range []struct {
		spread   float64
		attempts int
		want     time.Duration
	}{
		{0, 1, 250 * time.Millisecond},
		{0, 2, 500 * time.Millisecond},
		{0, 4, 2 * time.Second},
		{0, 5, 4 * time.Second},
		{0, 50, 4 * time.Second},
		{0.5, 1, 250*time.Millisecond + 250*time.Millisecond/8},
		{0.999, 50, 4*time.Second + time.Duration(0.999*float64(time.Second))},
	} {
		if got := ReconnectDelay(c.spread)(c.attempts); got != c.want {
			t.Errorf("ReconnectDelay(%v)(%d) = %s, want %s", c.spread, c.attempts, got, c.want)
		}
	}
	if s := reconnectSpread("spine worker"); s < 0 || s >= 1 {
		t.Errorf("reconnectSpread = %v, want [0, 1)", s)
	}
}
