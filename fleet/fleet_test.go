package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/taskrun"
)

const demoTask = "Count the lines that contain TODO in the files under src/ and write the count to report.txt"

// TestFleetRunsTasksLikeOneByOne: 30 tasks on 3 workers finish with the outcomes they
// have when each is run alone with taskrun, every stored trace replays byte for byte
// and names its task and attempt, and the bus stream holds each run's messages in
// trace order.
func TestFleetRunsTasksLikeOneByOne(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	ns := noSandbox()
	prep := testPrepare(rs, ns)
	_, c := testFleet(t)

	ctx := context.Background()
	var ids, texts []string
	for i := 0; i < 30; i++ {
		text := fmt.Sprintf("%s (#%d)", demoTask, i+1)
		if i%5 == 4 {
			text += " " + downTask
		}
		st, err := c.Submit(ctx, text, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if st.State != Queued {
			t.Fatalf("submitted %s is %s", st.ID, st.State)
		}
		ids, texts = append(ids, st.ID), append(texts, text)
	}
	stop := workers(t, c, 3, WorkerConfig{Concurrency: 1, WorkdirRoot: t.TempDir(), Prepare: prep})
	sts := waitFinished(t, c, ids, 120*time.Second)
	stop()

	byWorker := map[string]int{}
	for i, st := range sts {
		// The same task, run alone.
		dir := t.TempDir()
		work := filepath.Join(dir, "work")
		if err := os.MkdirAll(work, 0o700); err != nil {
			t.Fatal(err)
		}
		cfg, err := prep(ctx, st.Task, work)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Task, cfg.Workdir, cfg.TracePath = texts[i], work, filepath.Join(dir, "trace.jsonl")
		alone, aloneErr := taskrun.RunTask(ctx, cfg)
		want := Status{Final: alone.Final, Accepted: 1}
		if st.Outcome() != want.Outcome() || st.Outcome() == "" {
			// Both runs' records, to tell which of them went wrong and why.
			aloneTrace, _ := os.ReadFile(cfg.TracePath)
			fleetTrace, _, _ := c.Trace(ctx, st.ID, 0)
			t.Errorf("task %s (%q): %q on the fleet (error %q), %q alone (error %v)\nthe fleet's trace ends:\n%s\nthe trace alone ends:\n%s",
				st.ID, texts[i], st.Outcome(), st.Error, want.Outcome(), aloneErr, traceTail(fleetTrace), traceTail(aloneTrace))
		}
		if len(st.Attempts) != 1 || st.Accepted != 1 {
			t.Errorf("task %s: attempts %+v, accepted %d", st.ID, st.Attempts, st.Accepted)
		}
		a, _ := st.AcceptedAttempt()
		byWorker[a.Worker]++
		trace, got, err := c.Trace(ctx, st.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got.N != 1 || !bytes.Contains(trace, []byte(`"fleet_task":"`+st.ID+`"`)) || !bytes.Contains(trace, []byte(`"fleet_attempt":"1"`)) {
			t.Errorf("task %s: trace header: %.300s", st.ID, trace)
		}
		tracetest.AssertReplays(t, trace, rs)
		if i == 0 {
			checkBusStream(t, c, a.RunID, trace)
		}
	}
	outcomes := map[string]int{}
	for _, st := range sts {
		outcomes[st.Outcome()]++
	}
	t.Logf("tasks per worker: %v; outcomes: %v", byWorker, outcomes)
}

// TestServerRestartKeepsQueueAndTraces: a server restarted on the same directory still
// has every status as it was (the finished tasks' results, the queued ones) and the
// finished tasks' traces, and a worker then finishes the rest.
func TestServerRestartKeepsQueueAndTraces(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	dir, root := t.TempDir(), t.TempDir()
	srv := testServer(t, dir)
	c := testClient(t, srv.URL())
	ctx := context.Background()
	var ids []string
	for i := 0; i < 5; i++ {
		st, err := c.Submit(ctx, fmt.Sprintf("%s (#%d)", demoTask, i+1), RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	wctx, cancel := context.WithCancel(ctx)
	// A short ack wait: a task the stopping worker had fetched but not begun comes back soon.
	w, err := c.NewWorker(wctx, WorkerConfig{Name: "w1", WorkdirRoot: root, AckWait: time.Second, Prepare: testPrepare(rs, noSandbox())})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	waitFinished(t, c, ids[:1], 30*time.Second)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	before, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	traces := map[string][]byte{}
	for _, st := range before {
		if st.State == Finished {
			if traces[st.ID], _, err = c.Trace(ctx, st.ID, 0); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(traces) == 0 || len(traces) == len(ids) {
		t.Fatalf("%d of %d tasks finished before the restart; the test needs some of each", len(traces), len(ids))
	}
	c.Close()
	srv.Shutdown()

	srv = testServer(t, dir)
	defer srv.Shutdown()
	c = testClient(t, srv.URL())
	defer c.Close()
	after, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Fatalf("the statuses changed over the restart:\nbefore %+v\nafter  %+v", before, after)
	}
	for id, b := range traces {
		got, _, err := c.Trace(ctx, id, 0)
		if err != nil || !bytes.Equal(got, b) {
			t.Fatalf("task %s: the trace after the restart differs (%v)", id, err)
		}
	}
	stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: root, Prepare: testPrepare(rs, noSandbox())})
	sts := waitFinished(t, c, ids, 30*time.Second)
	stop()
	for _, st := range sts {
		if st.Final == nil || st.Accepted == 0 {
			t.Errorf("task %s: %+v", st.ID, st)
		}
	}
}

// TestWorkerStopsWhenConnectionIsClosed: a server that goes away is waited for (see
// TestWorkerSurvivesServerRestart), but a connection closed for good (the client gave
// up, or was closed) ends the worker, which says why.
func TestWorkerStopsWhenConnectionIsClosed(t *testing.T) {
	t.Parallel()
	_, c := testFleet(t)
	w, err := c.NewWorker(context.Background(), WorkerConfig{Name: "w1", WorkdirRoot: t.TempDir(), Prepare: testPrepare(testRules(t), true)})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(context.Background()) }()
	c.nc.Close()
	select {
	case err := <-done:
		if err != ErrConnectionLost {
			t.Fatalf("Run: %v, want %v", err, ErrConnectionLost)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the worker still runs 10 s after its connection was closed")
	}
}

func TestRedactURL(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"nats://127.0.0.1:4222", "nats://127.0.0.1:4222"},
		{"nats://alice:s3cret@host:4222", "nats://host:4222"},
		{"nats://tok3n@host:4222, tls://bob:pw@other:4443", "nats://host:4222,tls://other:4443"},
		{"alice:s3cret@host:4222", "…@host:4222"},
	} {
		if got := RedactURL(c.in); got != c.want {
			t.Errorf("RedactURL(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(RedactURL(c.in), "s3cret") {
			t.Errorf("%q keeps its password", c.in)
		}
	}
}

// traceTail is a trace's last lines, shortened, for a failure's message.
func traceTail(trace []byte) string {
	lines := strings.Split(strings.TrimSpace(string(trace)), "\n")
	lines = lines[max(0, len(lines)-12):]
	for i, l := range lines {
		if len(l) > 600 {
			lines[i] = l[:600] + "…"
		}
	}
	return strings.Join(lines, "\n")
}
