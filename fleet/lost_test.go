package fleet

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/taskrun"
)

// gatedChat holds its first request until open is closed.
type gatedChat struct {
	llm.ChatModel
	started chan struct{}
	open    chan struct{}
	first   bool
}

func (g *gatedChat) Complete(ctx context.Context, req llm.ChatRequest) (llm.ChatResponse, error) {
	if !g.first {
		g.first = true
		close(g.started)
		<-g.open
	}
	return g.ChatModel.Complete(ctx, req)
}

// TestWorkerLosesConnectionMidTask: the server goes away while a task runs. The run
// goes on to its FinalResult, decided by the rules, and its trace ends with halt; the
// worker takes nothing more and says the connection is lost. The task, never
// acknowledged, is still the queue's.
func TestWorkerLosesConnectionMidTask(t *testing.T) {
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
	close(gate.open)
	select {
	case err := <-done:
		if err != ErrConnectionLost {
			t.Fatalf("Run: %v, want %v", err, ErrConnectionLost)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the worker still runs 30 s after its server went away")
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
