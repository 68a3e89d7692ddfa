package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// TestLinesStoredAsWritten: while a run is held after its n-th trace event (flushed),
// the line stream holds exactly the lines on its trace file, at two points of the run;
// once the task is accepted its lines are purged and the object store has the trace,
// whose first lines are those.
func TestLinesStoredAsWritten(t *testing.T) {
	t.Parallel()
	rs := testRules(t)
	_, c := testFleet(t)
	ctx := context.Background()
	g := &gate{at: map[int]bool{3: true, 9: true}, held: make(chan int), release: make(chan struct{})}
	root := t.TempDir()
	finished := make(chan string, 1)
	stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: root, Prepare: g.prepare(testPrepare(rs, noSandbox())),
		Log: func(s string) {
			if strings.Contains(s, " finished: ") {
				finished <- s
			}
		}})
	defer stop()
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(root, st.ID, "1", "trace.jsonl")
	var seen [][]byte
	for range 2 {
		n := <-g.held
		onFile := fileLines(t, path)
		stored, err := c.attemptLines(ctx, st.ID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(onFile) < n || !equalLines(stored, onFile) {
			t.Fatalf("held after event %d: the file has %d lines, the stream %d; they differ:\nfile:   %q\nstream: %q",
				n, len(onFile), len(stored), onFile, stored)
		}
		if len(stored) <= len(seen) {
			t.Errorf("held after event %d: %d lines stored, no more than at the last hold (%d)", n, len(stored), len(seen))
		}
		seen = stored
		g.release <- struct{}{}
	}
	// The worker says the attempt finished once it is recorded and its lines purged.
	<-finished
	sts := waitFinished(t, c, []string{st.ID}, time.Minute)
	if sts[0].Final == nil {
		t.Fatalf("the task has no FinalResult: %+v", sts[0])
	}
	whole, _, err := c.Trace(ctx, st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(whole, bytes.Join(seen, nil)) {
		t.Errorf("the stored trace does not begin with the lines streamed while it ran")
	}
	if left, err := c.attemptLines(ctx, st.ID, 1); err != nil || len(left) > 0 {
		t.Errorf("after acceptance: %d lines left (%v), want them purged", len(left), err)
	}
}

// gate holds a run after each of the trace events named in at, once they are flushed
// (through the line tap), until the test releases it.
type gate struct {
	at      map[int]bool
	held    chan int
	release chan struct{}
}

func (g *gate) prepare(prep PrepareFunc) PrepareFunc {
	return func(ctx context.Context, t Task, workdir string) (taskrun.Config, error) {
		cfg, err := prep(ctx, t, workdir)
		cfg.WrapSink = func(next trace.Sink) trace.Sink { return &gateSink{next: next, g: g} }
		return cfg, err
	}
}

type gateSink struct {
	next trace.Sink
	g    *gate
	n    int
}

func (s *gateSink) Write(e *trace.Event) error {
	if err := s.next.Write(e); err != nil {
		return err
	}
	if s.n++; s.g.at[s.n] {
		if err := s.next.Flush(); err != nil {
			return err
		}
		s.g.held <- s.n
		<-s.g.release
	}
	return nil
}

func (s *gateSink) Flush() error { return s.next.Flush() }

// TestRedeliveryResumesFromStoredLines: a worker process killed after a seeded number
// of trace events leaves its lines in the stream; the attempt that takes the task
// next gets exactly them (the killed attempt's trace file, complete lines only) as the
// partial trace its Resume hook receives, and its status record names the attempt and
// line it resumed from.
func TestRedeliveryResumesFromStoredLines(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a worker process")
	}
	rs := testRules(t)
	events, _ := demoEvents(t, rs)
	srv, c := testFleet(t)
	ctx := context.Background()
	if _, err := c.workConsumer(ctx, 750*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	task, worker, _ := killHeld(t, c, srv.URL(), root, events/2, 1)
	if task != st.ID {
		t.Fatalf("the worker process held %s, want %s", task, st.ID)
	}
	killed := fileLines(t, filepath.Join(root, task, "1", "trace.jsonl"))

	type call struct {
		partial   []byte
		path      string
		tracePath string
		workdir   string
	}
	calls := make(chan call, 4)
	resume := func(ctx context.Context, partial string, cfg taskrun.Config) (taskrun.Result, error) {
		b, err := os.ReadFile(partial)
		if err != nil {
			return taskrun.Result{}, err
		}
		calls <- call{b, partial, cfg.TracePath, cfg.Workdir}
		return taskrun.RunTask(ctx, cfg) // a stand-in that runs from the start
	}
	stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: root, Prepare: testPrepare(rs, noSandbox()), Resume: resume})
	sts := waitFinished(t, c, []string{task}, 2*time.Minute)
	stop()

	var got call
	select {
	case got = <-calls:
	default:
		t.Fatalf("the Resume hook was not called; attempts %+v", sts[0].Attempts)
	}
	if !bytes.Equal(got.partial, bytes.Join(killed, nil)) {
		t.Errorf("the partial trace is not the killed attempt's lines: got %d bytes, want %d (%d lines)", len(got.partial), len(bytes.Join(killed, nil)), len(killed))
	}
	if rel, err := filepath.Rel(got.workdir, got.path); err == nil && filepath.IsLocal(rel) {
		t.Errorf("the partial trace %s is inside the work dir %s", got.path, got.workdir)
	}
	if got.tracePath == got.path {
		t.Errorf("the continued trace is written over the partial one: %s", got.path)
	}
	as := sts[0].Attempts
	if len(as) != 2 || as[0].Worker != worker || as[0].State != Superseded || as[1].State != Finished {
		t.Fatalf("attempts: %+v", as)
	}
	want := Resumption{Attempt: 1, Line: len(killed)}
	if as[0].Resumed != nil || as[1].Resumed == nil || *as[1].Resumed != want {
		t.Errorf("attempt 2 resumed from %+v, want %+v (attempt 1: %+v)", as[1].Resumed, want, as[0].Resumed)
	}
	t.Logf("killed after %d of %d events: %d lines on file, all in the stream; attempt 2 resumed from attempt 1's line %d",
		events/2, events, len(killed), want.Line)
}

// TestAttemptLines: what a redelivery reads of an attempt's stored lines: from line 1
// while they follow one another whole; a torn last line, a gap, a missing part end it;
// a line stored twice counts once; a line in parts is joined.
func TestAttemptLines(t *testing.T) {
	t.Parallel()
	_, c := testFleet(t)
	ctx := context.Background()
	type msg struct {
		line int
		part string
		data string
	}
	for i, tc := range []struct {
		name string
		msgs []msg
		want []string
	}{
		{"none", nil, nil},
		{"whole", []msg{{1, "1/1", "a\n"}, {2, "1/1", "b\n"}}, []string{"a\n", "b\n"}},
		{"torn last line", []msg{{1, "1/1", "a\n"}, {2, "1/1", "b\n"}, {3, "1/1", `{"seq":3,"ki`}}, []string{"a\n", "b\n"}},
		{"gap", []msg{{1, "1/1", "a\n"}, {3, "1/1", "c\n"}}, []string{"a\n"}},
		{"late line", []msg{{2, "1/1", "b\n"}, {1, "1/1", "a\n"}}, []string{"a\n", "b\n"}},
		{"stored twice", []msg{{1, "1/1", "a\n"}, {2, "1/1", "b\n"}, {2, "1/1", "b\n"}, {3, "1/1", "c\n"}}, []string{"a\n", "b\n", "c\n"}},
		{"parts", []msg{{1, "1/1", "a\n"}, {2, "1/3", "lo"}, {2, "2/3", "ng"}, {2, "3/3", "\n"}}, []string{"a\n", "long\n"}},
		{"part missing", []msg{{1, "1/1", "a\n"}, {2, "1/2", "lo"}, {3, "1/1", "c\n"}}, []string{"a\n"}},
		{"two lines in one", []msg{{1, "1/1", "a\nb\n"}}, nil},
		{"bad headers", []msg{{1, "1/1", "a\n"}, {0, "1/1", "x\n"}, {2, "0/1", "y\n"}, {2, "1/1", "b\n"}}, []string{"a\n", "b\n"}},
	} {
		task := fmt.Sprintf("task-lines%d", i)
		for j, m := range tc.msgs {
			_, err := c.js.PublishMsg(ctx, &nats.Msg{Subject: LineSubject(task, 1), Data: []byte(m.data), Header: nats.Header{
				LineHeader: []string{strconv.Itoa(m.line)}, PartHeader: []string{m.part},
				jetstream.MsgIDHeader: []string{fmt.Sprintf("%s/%d", task, j)}}})
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := c.attemptLines(ctx, task, 1)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestLineTapSendsWholeLines: the tap sends a line once its newline is on the file, in
// parts when it is longer than a message may be, and never a torn end.
func TestLineTapSendsWholeLines(t *testing.T) {
	t.Parallel()
	_, c := testFleet(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "trace.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tap := newLineTap(c, "task-tap", 1, path)
	tap.partSize = 4
	write := func(s string) {
		if _, err := f.WriteString(s); err != nil {
			t.Fatal(err)
		}
		tap.sync(ctx)
	}
	check := func(want ...string) {
		t.Helper()
		got, err := c.attemptLines(ctx, "task-tap", 1)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want) && !(len(got) == 0 && len(want) == 0) {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	write(`{"seq":1`)
	check()
	write("}\n{\"seq\":2}\n{\"se")
	check("{\"seq\":1}\n", "{\"seq\":2}\n")
	write("q\":3,\"long\":\"0123456789\"}\n")
	stored, err := tap.close(ctx)
	if err != nil || stored != 3 {
		t.Fatalf("close: %d lines stored, %v; want 3", stored, err)
	}
	check("{\"seq\":1}\n", "{\"seq\":2}\n", "{\"seq\":3,\"long\":\"0123456789\"}\n")
}

// fileLines is a trace file's complete lines, newline included; a torn end is left out.
func fileLines(t *testing.T, path string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if n := len(lines); n > 0 && !bytes.HasSuffix(lines[n-1], []byte("\n")) {
		lines = lines[:n-1]
	}
	return lines
}

func equalLines(a, b [][]byte) bool {
	return bytes.Equal(bytes.Join(a, nil), bytes.Join(b, nil)) && len(a) == len(b)
}
