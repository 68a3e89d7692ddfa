package fleet

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/memory"
)

// TestMemoryAcrossWorkers: the demo's first run, on worker A, ends accepted and GGS
// writes its Megrams. Worker B has its own store, which only the Megram log feeds: its
// run of the same task is calibrated with A's experience ("worked in 1 earlier task"),
// which the first run was not. Only one worker holds the Dreamer's lease.
func TestMemoryAcrossWorkers(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	share := func(name string) *SharedMemory {
		store, err := memory.OpenLevelDB(t.TempDir(), memory.Options{Clock: clock.System{}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(store.Close)
		sm, err := c.ShareMemory(ctx, store, name, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(sm.Close)
		return sm
	}
	var mu sync.Mutex
	var logs []string
	run := func(sm *SharedMemory, n int) (Status, []byte) {
		st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", demoTask, n), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: t.TempDir(), Prepare: storyPrepare(rs, noSandbox()), Memory: sm,
			Log: func(l string) { mu.Lock(); logs = append(logs, sm.name+": "+l); mu.Unlock() }})
		st = waitFinished(t, c, []string{st.ID}, 30*time.Second)[0]
		stop()
		trace, _, err := c.Trace(ctx, st.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		tracetest.AssertReplays(t, trace, rs)
		return st, trace
	}
	a, b := share("A"), share("B")
	if hold, err := a.HoldLease(ctx); err != nil || !hold {
		t.Fatalf("A takes the free lease: %v, %v", hold, err)
	}
	if hold, err := b.HoldLease(ctx); err != nil || hold {
		t.Fatalf("B takes A's lease: %v, %v", hold, err)
	}

	_, onA := run(a, 1)
	if calibrated(onA) {
		t.Fatalf("the first run, on an empty log, is calibrated with experience:\n%s", calibration(onA))
	}
	_, onB := run(b, 2)
	if !calibrated(onB) {
		t.Fatalf("B's run does not see A's Megram; its calibration:\n%s", calibration(onB))
	}
	alone := share("C-alone")
	if n, err := alone.Publish(ctx); err != nil || n != 0 {
		t.Fatalf("an empty store published %d, %v", n, err)
	}
	mu.Lock()
	all := strings.Join(logs, "\n")
	mu.Unlock()
	if !strings.Contains(all, "A: task task-t-1: the Dreamer ran here (lease held)") || strings.Contains(all, "B: task task-t-2: the Dreamer ran") {
		t.Errorf("the Dreamer should run on A, the lease holder, only:\n%s", all)
	}
	// A closed holder gives the lease back: B takes it at once.
	a.Close()
	if hold, err := b.HoldLease(ctx); err != nil || !hold {
		t.Errorf("B after A closed: %v, %v", hold, err)
	}
	if n, err := b.Refused(); n != 0 {
		t.Errorf("B refused %d log record(s): %v", n, err)
	}
}

var calibrationRe = regexp.MustCompile(`"name":"memory:calibrate".*`)

// calibration is the trace's first calibration exchange line.
func calibration(trace []byte) string {
	return calibrationRe.FindString(string(trace))
}

// calibrated: the run's calibration read that this same task worked once before.
func calibrated(trace []byte) bool {
	for _, line := range bytes.Split(trace, []byte("\n")) {
		if bytes.Contains(line, []byte(`"name":"memory:calibrate"`)) && bytes.Contains(line, []byte(`this same task (intent.full:`)) &&
			bytes.Contains(line, []byte(`worked in 1 earlier task (accept)`)) {
			return true
		}
	}
	return false
}
