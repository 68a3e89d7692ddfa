package fleet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/taskrun"
)

// gatedChat holds its first request until open is closed.
type gatedChat struct {
	llm.ChatModel
	started chan struct{}
	open    chan struct{}
	first   bool
}

func (g *gatedChat) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	if !g.first {
		g.first = true
		close(g.started)
		<-g.open
	}
	return g.ChatModel.Complete(ctx, req)
}

// TestWorkerSurvivesServerRestart: the server stops while a task runs; the run ends
// while it is down, and the worker holds its result until the server is back (on the
// same store and port). The worker's client reconnects and the result is recorded and
// acknowledged as the one attempt's: the task's delivery and lease outlived the
// restart. The worker, which waited instead of ending, then takes the next task.
func TestWorkerSurvivesServerRestart(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	dir := t.TempDir()
	srv := testServer(t, dir)
	defer func() { srv.Shutdown() }()
	back := make(chan struct{}, 1)
	c, err := Connect(context.Background(), ConnectOptions{URL: srv.URL(), IDs: &engine.SeqIDs{Prefix: "t"},
		OnReconnect: func() {
			select {
			case back <- struct{}{}:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gate := &gatedChat{started: make(chan struct{}), open: make(chan struct{})}
	demo := DemoPrepare(rs, noSandbox())
	var log logLines
	// The lease must outlast the server's downtime, which holds the end of the run and,
	// on a busy machine, takes several seconds: a delivery the restarted server finds
	// older than its ack wait, with no word from the worker yet, is redelivered.
	w, err := c.NewWorker(ctx, WorkerConfig{Name: "w1", WorkdirRoot: t.TempDir(), Concurrency: 2, AckWait: DefaultAckWait, Log: log.add,
		Prepare: func(ctx context.Context, tk Task, work string) (taskrun.Config, error) {
			cfg, err := demo(ctx, tk, work)
			if !gate.first {
				gate.ChatModel = cfg.Chat
				cfg.Chat = gate
			}
			return cfg, err
		}})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(runCtx) }()
	<-gate.started
	again := stopServer(t, srv, dir)
	log.wait(t, "the NATS connection is down")
	close(gate.open)
	log.wait(t, "storing the trace")
	srv = again(false)
	select {
	case <-back:
	case err := <-done:
		t.Fatalf("the worker ended while its server restarted: %v\n%s", err, log.String())
	}
	got := waitFinished(t, c, []string{st.ID}, 60*time.Second)[0]
	if got.Outcome() != "accept" || attemptStates(got) != Finished || got.Attempts[0].N != 1 {
		t.Fatalf("over the restart: %q, attempts %+v\n%s", got.Outcome(), got.Attempts, log.String())
	}
	if _, _, err := c.Trace(ctx, st.ID, 0); err != nil {
		t.Fatal(err)
	}
	next, err := c.Submit(ctx, demoTask+" (after the restart)", RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := waitFinished(t, c, []string{next.ID}, 60*time.Second)[0]; got.Outcome() != "accept" {
		t.Errorf("the task after the restart: %q", got.Outcome())
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run: %v", err)
	}
	// Done counts acknowledgements: the second task's may still be on its way when the
	// status says finished, never a third.
	if n := w.Done(); n < 1 || n > 2 {
		t.Errorf("%d task(s) acknowledged, want the two\n%s", n, log.String())
	}
	t.Logf("the worker said:\n%s", log.String())
}

// TestWorkerWithoutServerStops: the server goes away for good while a task runs. The
// run goes on to its FinalResult, decided by the rules, and its trace ends with halt;
// the worker, reconnecting meanwhile, takes nothing, and once stopped it ends without
// acknowledging anything: the task is still the queue's.
func TestWorkerWithoutServerStops(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	srv := testServer(t, t.TempDir())
	c := testClient(t, srv.URL())
	defer c.Close()
	ctx := context.Background()
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	gate := &gatedChat{started: make(chan struct{}), open: make(chan struct{})}
	demo := DemoPrepare(rs, noSandbox())
	root := t.TempDir()
	w, err := c.NewWorker(ctx, WorkerConfig{Name: "w1", WorkdirRoot: root, Prepare: func(ctx context.Context, tk Task, work string) (taskrun.Config, error) {
		cfg, err := demo(ctx, tk, work)
		gate.ChatModel = cfg.Chat
		cfg.Chat = gate
		return cfg, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	select {
	case <-gate.started:
	case <-time.After(20 * time.Second):
		t.Fatal("the task did not start")
	}
	srv.Shutdown()
	w.Stop()
	close(gate.open)
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the stopped worker still runs 60 s after its server went away")
	}
	trace, err := os.ReadFile(filepath.Join(root, st.ID, "1", "trace.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(trace, []byte(`"type":"FinalResult"`)) || !bytes.Contains(trace, []byte(`"kind":"halt"`)) {
		t.Errorf("the run did not end by its rules: %.300s", trace[max(0, len(trace)-300):])
	}
	if w.Done() != 0 {
		t.Errorf("%d task(s) acknowledged without a server", w.Done())
	}
}

// logLines gathers a worker's log.
type logLines struct {
	mu   sync.Mutex
	b    strings.Builder
	more chan struct{} // closed and replaced on each line
}

func (l *logLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.WriteString(s + "\n")
	if l.more != nil {
		close(l.more)
		l.more = nil
	}
}

// wait returns once a line holds s.
func (l *logLines) wait(t *testing.T, s string) {
	t.Helper()
	for {
		l.mu.Lock()
		if strings.Contains(l.b.String(), s) {
			l.mu.Unlock()
			return
		}
		if l.more == nil {
			l.more = make(chan struct{})
		}
		more := l.more
		l.mu.Unlock()
		select {
		case <-more:
		case <-time.After(60 * time.Second):
			t.Fatalf("the worker did not say %q in 60 s; it said:\n%s", s, l.String())
		}
	}
}

func (l *logLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestWorkerStopFinishesTasksInHand: Stop takes no more tasks, and the task in hand
// runs to its end, is recorded and acknowledged; the next stays queued.
func TestWorkerStopFinishesTasksInHand(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	var ids []string
	for i := 0; i < 2; i++ {
		st, err := c.Submit(ctx, demoTask, RunOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	gate := &gatedChat{started: make(chan struct{}), open: make(chan struct{})}
	demo := DemoPrepare(rs, noSandbox())
	w, err := c.NewWorker(ctx, WorkerConfig{Name: "w1", WorkdirRoot: t.TempDir(), Prepare: func(ctx context.Context, tk Task, work string) (taskrun.Config, error) {
		cfg, err := demo(ctx, tk, work)
		if !gate.first {
			gate.ChatModel = cfg.Chat
			cfg.Chat = gate
		}
		return cfg, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	<-gate.started
	w.Stop()
	close(gate.open)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	first, err := c.Status(ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Status(ctx, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	if w.Done() != 1 || first.State != Finished || first.Outcome() != "accept" || second.State != Queued {
		t.Errorf("done %d; first %s %s; second %s", w.Done(), first.State, first.Outcome(), second.State)
	}
}
