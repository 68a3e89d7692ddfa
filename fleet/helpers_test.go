package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

// A test binary started with envWorkerURL set is a worker process (the kill test's):
// it runs the demo's tasks against that server until it is killed.
const (
	envWorkerURL    = "SPINE_FLEET_TEST_WORKER_URL"
	envWorkerRoot   = "SPINE_FLEET_TEST_WORKER_ROOT"
	envWorkerHoldAt = "SPINE_FLEET_TEST_WORKER_HOLD_AT" // see holdAt, holdAtSnapshot
	// envWorkerSnapshots gives the worker process a snapshot store (WorkerConfig.Snapshots)
	// in that dir.
	envWorkerSnapshots = "SPINE_FLEET_TEST_WORKER_SNAPSHOTS"
	// holdAtSnapshot as envWorkerHoldAt holds the task after the run's first snapshot at
	// a round's end (holdAfterSnapshot) rather than after a number of events.
	holdAtSnapshot = "end-snapshot"
	// holdAtWrite holds it after the run's first write_file tool call (writeCall), before
	// the snapshot that follows it is written.
	holdAtWrite = "write-call"
	// holdAtWriteSnapshot holds it after the snapshot that follows that call.
	holdAtWriteSnapshot = "write-snapshot"
)

func TestMain(m *testing.M) {
	if url := os.Getenv(envWorkerURL); url != "" {
		os.Exit(workerProcess(url, os.Getenv(envWorkerRoot), os.Getenv(envWorkerHoldAt), os.Getenv(envWorkerSnapshots)))
	}
	os.Exit(m.Run())
}

func workerProcess(url, root, holdAtEnv, snapDir string) int {
	ctx := context.Background()
	c, err := Connect(ctx, ConnectOptions{URL: url, Name: "test-worker"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	prep, conc := testPrepare(rs, noSandbox()), 2
	var snaps *snapshot.Store
	if snapDir != "" {
		if snaps, err = snapshot.Open(snapDir); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if holdAtEnv != "" {
		// One task at a time: the process holds the first, and takes no other. Each
		// model request it sends is said on stderr, so the test counts them after the kill.
		prep = countCalls(prep, func() { fmt.Fprintln(os.Stderr, callMarker) })
		if holdAtEnv == holdAtSnapshot {
			prep = holdAfter(prep, endSnapshot)
		} else if holdAtEnv == holdAtWrite {
			prep = holdAfter(prep, writeCall)
		} else if holdAtEnv == holdAtWriteSnapshot {
			prep = holdAfter(prep, snapshotAfterWrite())
		} else if n, err := strconv.Atoi(holdAtEnv); err == nil && n > 0 {
			prep = holdAt(prep, n)
		} else {
			fmt.Fprintf(os.Stderr, "%s=%q: expected a positive number or %q\n", envWorkerHoldAt, holdAtEnv, holdAtSnapshot)
			return 1
		}
		conc = 1
		// Its stdin is the test's pipe: closed, the test process is gone, and so is this
		// one. (Pdeathsig would not do: it follows the thread that started the process,
		// and the sandbox ends threads that left the mount namespace.)
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			os.Exit(3)
		}()
	}
	w, err := c.NewWorker(ctx, WorkerConfig{Name: fmt.Sprintf("proc-%d", os.Getpid()), Concurrency: conc,
		WorkdirRoot: root, Prepare: prep, Resume: killResume, Snapshots: snaps, Log: func(s string) { fmt.Fprintln(os.Stderr, s) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := w.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// holdMarker begins the line a held worker process writes to stderr:
// "<holdMarker><task id> after <n> trace events".
const holdMarker = "holding task "

// holdAt makes a worker process stop its run right after the run's n-th trace event is
// written and flushed, say so on stderr, and wait there to be killed: the kill test's
// seeded point of a task's progress. The process ends by itself only when its stdin
// closes (see workerProcess), so it never outlives the test.
func holdAt(prep PrepareFunc, n int) PrepareFunc {
	return func(ctx context.Context, t Task, workdir string) (taskrun.Config, error) {
		cfg, err := prep(ctx, t, workdir)
		cfg.WrapSink = func(next trace.Sink) trace.Sink { return &holdSink{next: next, task: t.ID, at: n} }
		return cfg, err
	}
}

// holdAfter is holdAt at the first event for which at says true.
func holdAfter(prep PrepareFunc, at func(*trace.Event) bool) PrepareFunc {
	return func(ctx context.Context, t Task, workdir string) (taskrun.Config, error) {
		cfg, err := prep(ctx, t, workdir)
		cfg.WrapSink = func(next trace.Sink) trace.Sink { return &holdSink{next: next, task: t.ID, when: at} }
		return cfg, err
	}
}

type holdSink struct {
	next    trace.Sink
	task    string
	at, got int
	when    func(*trace.Event) bool // when set, the event to hold at, not the at-th
}

func (s *holdSink) Write(e *trace.Event) error {
	if err := s.next.Write(e); err != nil {
		return err
	}
	if s.got++; s.got == s.at || s.when != nil && s.when(e) {
		_ = s.next.Flush()
		fmt.Fprintf(os.Stderr, "%s%s after %d trace events\n", holdMarker, s.task, s.got)
		select {} // until the kill
	}
	return nil
}

func (s *holdSink) Flush() error { return s.next.Flush() }

// writeCall reports whether e records a write_file tool call.
func writeCall(e *trace.Event) bool {
	x, ok := trace.As[trace.Exchange](e)
	return ok && x.Name == trace.ExchangeTool+"write_file"
}

// snapshotAfterWrite reports whether e records the snapshot taken right after the
// run's first write_file call.
func snapshotAfterWrite() func(*trace.Event) bool {
	wrote := false
	return func(e *trace.Event) bool {
		if writeCall(e) {
			wrote = true
			return false
		}
		x, ok := trace.As[trace.Exchange](e)
		if !wrote || !ok || x.Name != roles.SnapshotName || x.Error != "" {
			return false
		}
		var at roles.SnapshotAt
		return json.Unmarshal(x.Request, &at) == nil && at.At == roles.SnapshotTool
	}
}

// endSnapshot reports whether e records a snapshot taken at a round's end: the round's
// files are in it, and the run goes on.
func endSnapshot(e *trace.Event) bool {
	x, ok := trace.As[trace.Exchange](e)
	if !ok || x.Name != roles.SnapshotName || x.Error != "" {
		return false
	}
	var at roles.SnapshotAt
	return json.Unmarshal(x.Request, &at) == nil && at.At == roles.SnapshotEnd
}

// callMarker is the line a held worker process writes to stderr as it sends a model
// request.
const callMarker = "model request sent"

// countCalls has prep's model tell on each request before it is sent.
func countCalls(prep PrepareFunc, on func()) PrepareFunc {
	return func(ctx context.Context, t Task, workdir string) (taskrun.Config, error) {
		cfg, err := prep(ctx, t, workdir)
		if cfg.Chat != nil {
			cfg.Chat = countingChat{cfg.Chat, on}
		}
		return cfg, err
	}
}

type countingChat struct {
	llm.ChatModel
	on func()
}

func (c countingChat) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	c.on()
	return c.ChatModel.Complete(ctx, req)
}

// countingSink counts the events written through it.
type countingSink struct {
	trace.Sink
	n *int
}

func (s countingSink) Write(e *trace.Event) error { *s.n++; return s.Sink.Write(e) }

// noSandbox is true where bubblewrap cannot run (the scripted calls then run
// unconfined, as `spine demo --pipeline` does there); CI must have it.
func noSandbox() bool {
	_, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
	return err != nil && os.Getenv("CI") == ""
}

// downTask marks a task whose model never answers (503 every time): the rules retry R1
// once, then abandon the task for model_unavailable.
const downTask = "[down]"

type downChat struct{}

func (downChat) Complete(context.Context, contract.ModelRequest) (contract.ModelResponse, error) {
	return contract.ModelResponse{}, &llm.StatusError{StatusCode: 503, Message: "overloaded"}
}

// errTask marks a task whose model answers with an error the roles do not take for a
// fault (as a stand-in's refusal of a request it cannot answer): the run ends on that
// error, with no FinalResult.
const errTask = "[error]"

type errChat struct{}

func (errChat) Complete(context.Context, contract.ModelRequest) (contract.ModelResponse, error) {
	return contract.ModelResponse{}, errors.New("stand-in: this request is not one it answers")
}

// testPrepare runs the demo worker's stand-in, or, for a task naming downTask, a run
// whose model answers nothing, so the fleet sees two outcomes.
func testPrepare(rs *ruleset.RuleSet, noSandbox bool) PrepareFunc {
	return withDown(DemoPrepare(rs, noSandbox), rs, noSandbox)
}

// storyPrepare is testPrepare with `spine demo --pipeline`'s script in place of the
// stand-in, for the tests that follow its story (a change_path, then accept; the same
// intent whatever the task's text): every task must be demoTask, numbered or not.
func storyPrepare(rs *ruleset.RuleSet, noSandbox bool) PrepareFunc {
	story := func(_ context.Context, _ Task, workdir string) (taskrun.Config, error) {
		d := scripted.NewPipelineDemo()
		if err := d.WriteFiles(workdir); err != nil {
			return taskrun.Config{}, err
		}
		return taskrun.Config{LLM: scripted.LLMConfig(), Chat: scripted.NewChat(d.Script), Rules: rs, NoSandbox: noSandbox}, nil
	}
	return withDown(story, rs, noSandbox)
}

func withDown(demo PrepareFunc, rs *ruleset.RuleSet, noSandbox bool) PrepareFunc {
	return func(ctx context.Context, t Task, workdir string) (taskrun.Config, error) {
		if strings.Contains(t.Text, downTask) {
			return taskrun.Config{LLM: scripted.LLMConfig(), Chat: downChat{}, Rules: rs, NoSandbox: noSandbox}, nil
		}
		if strings.Contains(t.Text, errTask) {
			return taskrun.Config{LLM: scripted.LLMConfig(), Chat: errChat{}, Rules: rs, NoSandbox: noSandbox}, nil
		}
		return demo(ctx, t, workdir)
	}
}

// testServer is an embedded server on a temporary directory, on any free port.
func testServer(t testing.TB, dir string) *Server {
	t.Helper()
	s, err := StartServer(ServerConfig{Dir: dir, Port: -1})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testFleet is a server on a temporary directory and a client of it, closed when the
// test ends.
func testFleet(t testing.TB) (*Server, *Client) {
	t.Helper()
	srv := testServer(t, t.TempDir())
	t.Cleanup(srv.Shutdown)
	c := testClient(t, srv.URL())
	t.Cleanup(c.Close)
	return srv, c
}

func testClient(t testing.TB, url string) *Client {
	t.Helper()
	c, err := Connect(context.Background(), ConnectOptions{URL: url, IDs: &engine.SeqIDs{Prefix: "t"},
		Clock: clock.NewStep(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), time.Second)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testRules(t testing.TB) *ruleset.RuleSet {
	t.Helper()
	rs, err := taskrun.LoadRules("")
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// workers runs n workers as goroutines until stop is called.
func workers(t testing.TB, c *Client, n int, cfg WorkerConfig) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		cfg := cfg
		cfg.Name = fmt.Sprintf("w%d", i+1)
		w, err := c.NewWorker(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Run(ctx); err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("worker %s: %v", cfg.Name, err)
			}
		}()
	}
	return func() { cancel(); wg.Wait() }
}

// waitFinished waits until every task is finished, or fails after d: it watches the
// status bucket, so it wakes at each status change rather than at a poll's tick.
func waitFinished(t testing.TB, c *Client, ids []string, d time.Duration) []Status {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	w, err := c.status.WatchAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Stop() }()
	left := map[string]bool{}
	for _, id := range ids {
		left[id] = true
	}
	for len(left) > 0 {
		select {
		case e := <-w.Updates():
			if e == nil {
				continue // the bucket's current values have all been seen
			}
			var st Status
			if e.Operation() == jetstream.KeyValuePut && json.Unmarshal(e.Value(), &st) == nil && st.State == Finished {
				delete(left, e.Key())
			}
		case <-ctx.Done():
			t.Fatalf("%d of %d tasks not finished after %s", len(left), len(ids), d)
		}
	}
	var out []Status
	for _, id := range ids {
		st, err := c.Status(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, st)
	}
	return out
}
