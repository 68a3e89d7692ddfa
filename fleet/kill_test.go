package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// TestKilledWorkers: 20 worker processes are SIGKILLed, each while it runs a task, at a
// seeded point of that task's progress (after its n-th trace event, n drawn from the
// seed): the process says on stderr that it holds the task there, and the test kills it
// then, never at a wall-clock moment. Every task still finishes exactly once: one
// accepted attempt, whose trace replays; every killed attempt is superseded, and the
// attempt that follows it says so in its trace header. SPINE_FLEET_KILL_SEED replays a
// seed the log printed.
//
// It counts the model requests of every attempt, the killed ones' included, against a
// run with no kills: the survivors resume with killResume, and the requests made again
// are at most those in flight at the kills (sent, their answers in no stored line);
// with no resume (killResume nil) they are every request the killed attempts made.
// Every worker snapshots its runs' work dirs into a store of its own, so an attempt
// resumed after a round restores its files from the fleet's copy of the snapshot.
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
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("failed with seed %d: SPINE_FLEET_KILL_SEED=%d go test -run TestKilledWorkers ./fleet/", seed, seed)
		}
	})
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	rs := testRules(t)
	events, perRun := demoEvents(t, rs)
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
	type kill struct {
		task, worker string
		at           int
	}
	var killed []kill
	killedCalls, inFlight := 0, 0
	for k := 0; k < kills; k++ {
		// Held after the at-th event: never the last, so the run has not ended.
		at := 1 + rng.IntN(events-1)
		task, worker, calls := killHeldSnapshotting(t, c, srv.URL(), root, at, k+1)
		killed = append(killed, kill{task, worker, at})
		answered := storedModelCalls(t, c, task, worker)
		killedCalls += calls
		inFlight += calls - answered
	}
	// The survivors: two workers as goroutines take what the killed ones left.
	var survivorCalls atomic.Int64
	snaps, err := snapshot.Open(filepath.Join(t.TempDir(), "survivors-snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	stop := workers(t, c, 2, WorkerConfig{Concurrency: 2, WorkdirRoot: root, Resume: killResume, Snapshots: snaps,
		Prepare: countCalls(testPrepare(rs, noSandbox()), func() { survivorCalls.Add(1) })})
	sts := waitFinished(t, c, ids, 3*time.Minute)
	stop()
	total, noKills := killedCalls+int(survivorCalls.Load()), tasks*perRun
	again := total - noKills
	switch {
	case killResume == nil && again != killedCalls:
		t.Errorf("rerunning: %d model requests across all attempts, %d with no kills: %d made again, want the killed attempts' %d", total, noKills, again, killedCalls)
	case killResume != nil && again > inFlight:
		t.Errorf("resuming: %d model requests across all attempts, %d with no kills: %d made again, more than the %d in flight at the kills", total, noKills, again, inFlight)
	}

	byID := map[string]Status{}
	attempts, superseded, redelivered, restored := 0, 0, 0, 0
	for _, st := range sts {
		byID[st.ID] = st
		accepted := 0
		for _, a := range st.Attempts {
			if a.Resumed != nil && a.Resumed.Snapshot != "" {
				restored++
			}
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
	// Every killed attempt was running when it was killed: the next delivery of its task
	// superseded it.
	for _, k := range killed {
		found := false
		for _, a := range byID[k.task].Attempts {
			if a.Worker == k.worker {
				found = true
				if a.State != Superseded {
					t.Errorf("task %s: the attempt killed after %d events on %s is %s, want %s", k.task, k.at, k.worker, a.State, Superseded)
				}
			}
		}
		if !found {
			t.Errorf("task %s: no attempt on %s, killed while it held the task", k.task, k.worker)
		}
	}
	t.Logf("%d kills, each while a task ran (a run writes %d trace events); %d tasks finished exactly once after %d attempts; %d redelivered, %d attempts superseded",
		kills, events, len(sts), attempts, redelivered, superseded)
	mode := "rerun"
	if killResume != nil {
		mode = "resumed"
	}
	t.Logf("%d resumed attempts restored their work dir from a snapshot fetched from the fleet (each killed worker had a store of its own)", restored)
	t.Logf("model requests (%s): %d across all attempts, %d for the same tasks with no kills (%d a task); %d made again; the killed attempts made %d, of which %d were in flight (no stored line holds their answer)",
		mode, total, noKills, perRun, again, killedCalls, inFlight)
}

// killResume is the resume the kill test's survivors use (the one spine worker uses);
// nil reruns a killed task from the start.
var killResume ResumeFunc = taskrun.ResumePartial

// storedModelCalls is how many answers to model calls the attempt worker made of task
// made and stored: its exchange lines, past the recording's it resumed from, if it did.
func storedModelCalls(t *testing.T, c *Client, task, worker string) int {
	t.Helper()
	st, err := c.Status(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	n, from := 0, 0
	for _, a := range st.Attempts {
		if a.Worker == worker {
			n = a.N
			if a.Resumed != nil {
				from = a.Resumed.Line // the lines up to it are the recording's, byte for byte
			}
		}
	}
	lines, err := c.attemptLines(context.Background(), task, n)
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, l := range lines[min(from, len(lines)):] {
		var e struct{ Kind, Name string }
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("task %s attempt %d: a stored line is not JSON: %v", task, n, err)
		}
		if e.Kind == trace.KindExchange && strings.HasPrefix(e.Name, trace.ExchangeModel) {
			calls++
		}
	}
	return calls
}

// killHeld starts a worker process that holds the first task it takes after the task's
// at-th trace event, waits until the process says it holds it, checks the status says
// the process's attempt is running, and SIGKILLs the process. It returns the task and
// the worker's name.
func killHeld(t *testing.T, c *Client, url, root string, at, k int) (task, worker string, calls int) {
	t.Helper()
	return killHeldEnv(t, c, url, root, k, envWorkerHoldAt+"="+strconv.Itoa(at))
}

// killHeldSnapshotting is killHeld for a worker process that snapshots its runs' work
// dirs into a store of its own (under root, beside the task dirs).
func killHeldSnapshotting(t *testing.T, c *Client, url, root string, at, k int) (task, worker string, calls int) {
	t.Helper()
	return killHeldEnv(t, c, url, root, k, envWorkerHoldAt+"="+strconv.Itoa(at),
		envWorkerSnapshots+"="+filepath.Join(root, fmt.Sprintf(".snapshots-%d", k)))
}

// killHeldEnv is killHeld with the worker process's hold point (and anything else) in env.
func killHeldEnv(t *testing.T, c *Client, url, root string, k int, env ...string) (task, worker string, calls int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(append(os.Environ(), envWorkerURL+"="+url, envWorkerRoot+"="+root), env...)
	stdin, err := cmd.StdinPipe() // the process ends when it closes
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	out := &heldWatch{held: make(chan string, 1)}
	cmd.Stderr = out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	worker = fmt.Sprintf("proc-%d", cmd.Process.Pid)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case task = <-out.held:
	case err := <-exited:
		t.Fatalf("kill %d: worker process %s ended before it held a task (%v):\n%s", k, worker, err, out)
	case <-time.After(2 * time.Minute): // a bound on a failure, not a synchronisation
		_ = cmd.Process.Kill()
		<-exited
		t.Fatalf("kill %d: worker process %s held no task after 2 minutes:\n%s", k, worker, out)
	}
	st, err := c.Status(context.Background(), task)
	if err != nil {
		t.Fatal(err)
	}
	running := false
	for _, a := range st.Attempts {
		running = running || a.Worker == worker && a.State == Running
	}
	if !running {
		t.Errorf("kill %d: %s holds task %s but its status says %+v", k, worker, task, st.Attempts)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err = <-exited
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("kill %d: the worker process ended on its own (%v):\n%s", k, err, out)
	}
	for _, line := range strings.Split(out.String(), "\n") {
		if line == callMarker {
			calls++
		}
	}
	return task, worker, calls
}

// heldWatch keeps a worker process's stderr and sends the task it holds once it says so.
type heldWatch struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	held chan string
	sent bool
}

func (h *heldWatch) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.buf.Write(p)
	if !h.sent {
		for _, line := range strings.Split(h.buf.String(), "\n") {
			if rest, ok := strings.CutPrefix(line, holdMarker); ok && strings.Contains(rest, " after ") {
				h.held <- rest[:strings.Index(rest, " ")]
				h.sent = true
				break
			}
		}
	}
	return len(p), nil
}

func (h *heldWatch) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.buf.String()
}

// demoEvents is how many trace events a run of the demo task writes through its
// WrapSink, run alone (the range the kill points are drawn from), and how many model
// requests it sends.
func demoEvents(t *testing.T, rs *ruleset.RuleSet) (events, calls int) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	cfg, err := countCalls(testPrepare(rs, noSandbox()), func() { sent.Add(1) })(context.Background(), Task{Text: demoTask}, work)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	cfg.Task, cfg.Workdir, cfg.TracePath = demoTask, work, filepath.Join(dir, "trace.jsonl")
	cfg.WrapSink = func(next trace.Sink) trace.Sink { return countingSink{Sink: next, n: &n} }
	if _, err := taskrun.RunTask(context.Background(), cfg); err != nil {
		t.Fatalf("the demo task, run alone: %v", err)
	}
	if n < 2 {
		t.Fatalf("the demo task wrote %d trace events: too few to kill it in the middle", n)
	}
	return n, int(sent.Load())
}
