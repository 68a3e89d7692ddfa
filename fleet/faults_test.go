//go:build faults && linux

package fleet

// The fleet's fault-injection suite: go test -tags faults -run Fault ./fleet/ (.ci/run
// runs it). It logs one line of the table in the README's reliability section: trials,
// acknowledged, lost, misreported.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/engine"
)

// lastID is an IDSource that remembers the id it gave last (Submit takes one a call).
type lastID struct {
	engine.SeqIDs
	last string
}

func (l *lastID) NewID() string { l.last = l.SeqIDs.NewID(); return l.last }

// TestFaultServerRestartsDuringBatch: while two workers run a batch, the server is
// stopped and started again on its store at seeded moments (a task running each time);
// at a seeded half of the restarts it forgets the work consumer's deliveries, as a
// SIGKILLed server may, so tasks come again with a delivery count of 1. While it is
// down a task is submitted. Acknowledged: tasks Submit returned without error. Lost:
// one of those not finished at the end. Misreported: a task with other than one
// accepted attempt, a repeated attempt number or run id, a status left unfinished (a
// task "queued" with no message), or a submit that failed without saying the task may
// have been stored, whose task then ran. SPINE_FAULT_SEED replays a run.
func TestFaultServerRestartsDuringBatch(t *testing.T) {
	const tasks, restarts = 20, 10
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("SPINE_FAULT_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("SPINE_FAULT_SEED=%q: %v", v, err)
		}
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	rs := testRules(t)
	dir := t.TempDir()
	srv := testServer(t, dir)
	defer func() { srv.Shutdown() }()
	ids := &lastID{SeqIDs: engine.SeqIDs{Prefix: "f"}}
	c, err := Connect(context.Background(), ConnectOptions{URL: srv.URL(), IDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	if _, err := c.workConsumer(ctx, time.Second); err != nil {
		t.Fatal(err)
	}
	var acked []string
	for i := 0; i < tasks; i++ {
		st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", demoTask, i+1), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		acked = append(acked, st.ID)
	}
	var log logLines
	stop := workers(t, c, 2, WorkerConfig{Concurrency: 2, WorkdirRoot: t.TempDir(), Log: log.add,
		Prepare: testPrepare(rs, noSandbox())})
	defer func() {
		if t.Failed() {
			t.Logf("the workers said:\n%s", log.String())
		}
	}()

	failedSubmits := map[string]bool{} // id → the error said the task may be queued
	forgot := 0
	for k := 0; k < restarts; k++ {
		if !waitForRunning(c, acked, 60*time.Second) {
			break // the batch ended first
		}
		again := stopServer(t, srv, dir)
		sctx, cancel := context.WithTimeout(ctx, time.Duration(200+rng.IntN(800))*time.Millisecond)
		st, err := c.Submit(sctx, fmt.Sprintf("%s (while down #%d)", demoTask, k+1), RunOptions{})
		cancel()
		if err == nil {
			acked = append(acked, st.ID) // buffered and confirmed: cannot be, but count it
		} else {
			failedSubmits[newTaskID(ids.last)] = strings.Contains(err.Error(), "may have stored it")
		}
		forget := rng.IntN(2) == 0
		if forget {
			forgot++
		}
		srv = again(forget)
	}
	row := faultRow{trials: restarts, acked: len(acked)}
	if !waitQuiet(c, 120*time.Second) {
		t.Error("the queue did not drain in 120 s")
	}
	stop()

	all, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]Status{}
	for _, st := range all {
		byID[st.ID] = st
	}
	attempts := 0
	for _, id := range acked {
		st, ok := byID[id]
		if !ok || st.State != Finished {
			row.lost++
			t.Errorf("task %s: %s after the batch", id, st.State)
		}
	}
	ranAfterFailedSubmit := 0
	for _, st := range all {
		attempts += len(st.Attempts)
		if hinted, failed := failedSubmits[st.ID]; failed {
			ranAfterFailedSubmit++
			if !hinted {
				row.misreported++
				t.Errorf("task %s: its submit failed without saying it may be queued, and it ran", st.ID)
			}
		}
		if st.State != Finished {
			row.misreported++
			t.Errorf("task %s: left %s", st.ID, st.State)
			continue
		}
		nums, runs, accepted := map[int]bool{}, map[string]bool{}, 0
		for _, a := range st.Attempts {
			if nums[a.N] || runs[a.RunID] {
				row.misreported++
				t.Errorf("task %s: attempt %d or run %s repeated: %+v", st.ID, a.N, a.RunID, st.Attempts)
			}
			nums[a.N], runs[a.RunID] = true, true
			if a.N == st.Accepted {
				accepted++
			}
		}
		if accepted != 1 {
			row.misreported++
			t.Errorf("task %s: %d accepted attempts: %+v", st.ID, accepted, st.Attempts)
			continue
		}
		if a, _ := st.AcceptedAttempt(); a.Trace != "" {
			trace, _, err := c.Trace(ctx, st.ID, 0)
			if err != nil {
				t.Fatal(err)
			}
			tracetest.AssertReplays(t, trace, rs)
		}
	}
	t.Logf("%d restarts (%d forgetting the consumer's deliveries); %d tasks, %d attempts; %d submits failed while down, %d of them queued all the same and ran",
		restarts, forgot, len(all), attempts, len(failedSubmits), ranAfterFailedSubmit)
	row.log(t, "NATS server restarted during a batch and a submit (deliveries forgotten at half)", seed)
}

type faultRow struct{ trials, acked, lost, misreported int }

func (r faultRow) log(t *testing.T, scenario string, seed uint64) {
	t.Logf("| %s | %d | %d | %d | %d |", scenario, r.trials, r.acked, r.lost, r.misreported)
	if r.lost > 0 || r.misreported > 0 {
		t.Errorf("%s: %d lost, %d misreported; replay with SPINE_FAULT_SEED=%d", scenario, r.lost, r.misreported, seed)
	}
}

// waitForRunning polls until one of ids is running (true) or none is left to run.
func waitForRunning(c *Client, ids []string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		left := false
		for _, id := range ids {
			st, err := c.Status(context.Background(), id)
			if err != nil {
				left = true // the server is still coming back
				continue
			}
			if st.State == Running {
				return true
			}
			if st.State != Finished {
				left = true
			}
		}
		if !left {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// waitQuiet polls until no task waits or is in a worker's hands and every status is
// finished.
func waitQuiet(c *Client, d time.Duration) bool {
	ctx := context.Background()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		cons, err := c.js.Consumer(ctx, TaskStream, WorkConsumer)
		if err == nil {
			info, err := cons.Info(ctx)
			if err == nil && info.NumPending == 0 && info.NumAckPending == 0 {
				all, err := c.List(ctx)
				done := err == nil
				for _, st := range all {
					done = done && st.State == Finished
				}
				if done {
					return true
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
