package fleet

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/agentspine/spine/internal/tracetest"
)

// TestKilledWorkers: worker processes are SIGKILLed at seeded random moments, 20 times.
// Every task still finishes exactly once: one accepted attempt, whose trace replays;
// an attempt that follows a killed one says in its trace header which it supersedes.
// SPINE_FLEET_KILL_SEED replays a seed the log printed.
func TestKilledWorkers(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	const kills, tasks = 20, 30
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("SPINE_FLEET_KILL_SEED"); s != "" {
		var err error
		if seed, err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("SPINE_FLEET_KILL_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (SPINE_FLEET_KILL_SEED=%d replays it)", seed, seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	rs := testRules(t)
	srv, c := testFleet(t)
	ctx := context.Background()
	// A short ack wait, so a killed worker's tasks come back within the test.
	if _, err := c.workConsumer(ctx, 750*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i := 0; i < tasks; i++ {
		st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", demoTask, i+1), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	root := t.TempDir()
	killedMidTask := 0
	logs := make([]*bytes.Buffer, kills) // each killed worker's, shown when the test fails
	defer func() {
		if t.Failed() {
			for k, l := range logs {
				if l != nil {
					t.Logf("worker process %d said:\n%s", k+1, l)
				}
			}
		}
	}()
	for k := 0; k < kills; k++ {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envWorkerURL+"="+srv.URL(), envWorkerRoot+"="+root)
		stderr := &bytes.Buffer{}
		logs[k], cmd.Stderr = stderr, stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(50+rng.IntN(450)) * time.Millisecond)
		running := countRunning(t, c, ids)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %d: the worker process ended on its own (%v): %s", k+1, err, stderr.String())
		}
		if running > 0 {
			killedMidTask++
		}
	}
	// The survivors: two workers as goroutines take what the killed ones left.
	stop := workers(t, c, 2, WorkerConfig{Concurrency: 2, WorkdirRoot: root, Prepare: testPrepare(rs, noSandbox())})
	sts := waitFinished(t, c, ids, 90*time.Second)
	stop()

	attempts, superseded, redelivered := 0, 0, 0
	for _, st := range sts {
		accepted := 0
		for _, a := range st.Attempts {
			if a.State == Finished {
				accepted++
			}
			if a.State == Superseded {
				superseded++
			}
		}
		attempts += len(st.Attempts)
		if len(st.Attempts) > 1 {
			redelivered++
		}
		if accepted != 1 || st.Final == nil {
			t.Errorf("task %s: %d accepted attempts, final %+v, error %q: %+v", st.ID, accepted, st.Final, st.Error, st.Attempts)
			continue
		}
		trace, a, err := c.Trace(ctx, st.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		tracetest.AssertReplays(t, trace, rs)
		// The attempt before the accepted one was running when the accepted one began
		// (else it would have finished, refused): the accepted one superseded it.
		if i := len(st.Attempts) - 1; i > 0 && st.Attempts[i].N == a.N && st.Attempts[i-1].State == Superseded &&
			!bytes.Contains(trace, []byte(fmt.Sprintf(`attempt %d on %s (run %s)`, st.Attempts[i-1].N, st.Attempts[i-1].Worker, st.Attempts[i-1].RunID))) {
			t.Errorf("task %s: attempt %d's trace does not name superseded attempt %d: %.400s", st.ID, a.N, st.Attempts[i-1].N, trace)
		}
	}
	t.Logf("%d kills (%d while a task ran); %d tasks finished exactly once after %d attempts; %d redelivered, %d attempts superseded",
		kills, killedMidTask, len(sts), attempts, redelivered, superseded)
	if killedMidTask == 0 {
		t.Error("no kill hit a running task: the test proves nothing")
	}
}

func countRunning(t *testing.T, c *Client, ids []string) int {
	n := 0
	for _, id := range ids {
		st, err := c.Status(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if st.State == Running {
			n++
		}
	}
	return n
}
