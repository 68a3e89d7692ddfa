package fleet

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/snapshot/tracerefs"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// killAfterRound submits the demo task and SIGKILLs a worker process (its own work dir
// root and snapshot store) held right after the run's end-of-round snapshot, whose
// round wrote report.md. It returns the task, the killed attempt's stored lines and the
// root they record last.
func killAfterRound(t *testing.T, c *Client, url string) (task string, lines [][]byte, root string) {
	return killAt(t, c, url, holdAtSnapshot)
}

// killAt is killAfterRound held where hold (an envWorkerHoldAt value) says.
func killAt(t *testing.T, c *Client, url, hold string) (task string, lines [][]byte, root string) {
	t.Helper()
	ctx := context.Background()
	if _, err := c.workConsumer(ctx, 750*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	st, err := c.Submit(ctx, demoTask, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	task, _, _ = killHeldEnv(t, c, url, t.TempDir(), 1, envWorkerHoldAt+"="+hold,
		envWorkerSnapshots+"="+filepath.Join(t.TempDir(), "snapshots"))
	if task != st.ID {
		t.Fatalf("the worker process held %s, want %s", task, st.ID)
	}
	if lines, err = c.attemptLines(ctx, task, 1); err != nil {
		t.Fatal(err)
	}
	if root, _ = tracerefs.LastRoot(lines); root == "" {
		t.Fatalf("the killed attempt's %d stored lines record no snapshot", len(lines))
	}
	return task, lines, root
}

// survivor runs one in-process worker on a work dir root and snapshot store of its own
// until the task finishes, counting its model requests and keeping its log.
func survivor(t *testing.T, c *Client, task string) (Status, string, int64, string) {
	t.Helper()
	rs := testRules(t)
	root := t.TempDir()
	store, err := snapshot.Open(filepath.Join(t.TempDir(), "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	var mu sync.Mutex
	var log strings.Builder
	stop := workers(t, c, 1, WorkerConfig{WorkdirRoot: root, Snapshots: store, Resume: taskrun.ResumePartial,
		Prepare: countCalls(testPrepare(rs, noSandbox()), func() { calls.Add(1) }),
		Log:     func(s string) { mu.Lock(); log.WriteString(s + "\n"); mu.Unlock() }})
	sts := waitFinished(t, c, []string{task}, 2*time.Minute)
	stop()
	mu.Lock()
	defer mu.Unlock()
	return sts[0], root, calls.Load(), log.String()
}

// uninterrupted runs the demo task alone as attempt 1 of task would have: the same run
// id, so the same FinalResult; it returns that and the root of its final work dir.
func uninterrupted(t *testing.T, task string, scratch *snapshot.Store) (final, root string) {
	t.Helper()
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := testPrepare(testRules(t), noSandbox())(context.Background(), Task{Text: demoTask}, work)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Task, cfg.Workdir, cfg.RunID, cfg.TracePath = demoTask, work, task+"-1", filepath.Join(dir, "trace.jsonl")
	res, err := taskrun.RunTask(context.Background(), cfg)
	if err != nil || res.Final == nil {
		t.Fatalf("the uninterrupted run: %v, final %v", err, res.Final)
	}
	return finalJSON(t, res.Final), takeRoot(t, scratch, work)
}

// finalJSON is a FinalResult without its loss, whose Ω counts the run's elapsed wall
// time: everything else of it is the run's decisions and output.
func finalJSON(t *testing.T, f *contract.FinalResult) string {
	t.Helper()
	g := *f
	g.Loss = contract.Loss{}
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func takeRoot(t *testing.T, s *snapshot.Store, dir string) string {
	t.Helper()
	root, _, err := s.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestResumeRestoresSnapshotOnAnotherWorker: a worker process is killed after a round
// that wrote report.md; its lines and that round's snapshot are in JetStream. A worker
// with another work dir root and another snapshot store (another machine, as far as
// the files go) takes the task, fetches the snapshot, restores it and resumes: it makes
// no model request, ends with the FinalResult and the work dir of the uninterrupted
// run, and its attempt says from which line it resumed and which snapshot it restored.
func TestResumeRestoresSnapshotOnAnotherWorker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a worker process")
	}
	srv, c := testFleet(t)
	task, lines, root := killAfterRound(t, c, srv.URL())
	st, workRoot, calls, log := survivor(t, c, task)

	as := st.Attempts
	if len(as) != 2 || as[0].State != Superseded || as[1].State != Finished || st.Final == nil {
		t.Fatalf("attempts %+v, final %v, error %q\nlog:\n%s", as, st.Final, st.Error, log)
	}
	want := Resumption{Attempt: 1, Line: len(lines), Snapshot: root}
	if as[1].Resumed == nil || *as[1].Resumed != want {
		t.Fatalf("attempt 2 resumed from %+v, want %+v\nlog:\n%s", as[1].Resumed, want, log)
	}
	if calls != 0 {
		t.Errorf("the resumed attempt made %d model requests; every answer was in the stored lines", calls)
	}
	scratch, err := snapshot.Open(filepath.Join(t.TempDir(), "scratch"))
	if err != nil {
		t.Fatal(err)
	}
	wantFinal, wantRoot := uninterrupted(t, task, scratch)
	if got := finalJSON(t, st.Final); got != wantFinal {
		t.Errorf("FinalResult:\n got %s\nwant %s", got, wantFinal)
	}
	work := filepath.Join(workRoot, task, "2", "work")
	if got := takeRoot(t, scratch, work); got != wantRoot {
		d, _ := scratch.Compare(wantRoot, work)
		t.Errorf("the resumed work dir is not the uninterrupted run's: first difference %v", d)
	}
	if b, err := os.ReadFile(filepath.Join(work, "report.md")); err != nil || !strings.HasPrefix(string(b), "# Report") {
		t.Errorf("report.md, written by the killed attempt's round: %q, %v", b, err)
	}
	trace, _, err := c.Trace(context.Background(), task, 0)
	if err != nil {
		t.Fatal(err)
	}
	tracetest.AssertReplays(t, trace, testRules(t))
	t.Logf("killed after the round's snapshot (line %d, root %.12s…); resumed on another worker: 0 model requests, same FinalResult, same work dir (root %.12s…)",
		len(lines), root, wantRoot)
}

// TestResumeWithoutItsSnapshotRunsFromStart: the rule when the snapshot cannot be
// fetched whole: with its manifest gone from the fleet's store (or a blob corrupt), the
// attempt says why and runs from the start, paying its model requests again, and still
// ends with the uninterrupted run's FinalResult and files; it records no resumption.
func TestResumeWithoutItsSnapshotRunsFromStart(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts a worker process")
	}
	srv, c := testFleet(t)
	task, _, root := killAfterRound(t, c, srv.URL())
	if err := c.snaps.os.Delete(context.Background(), snapshot.ManifestName(root)); err != nil {
		t.Fatal(err)
	}
	st, workRoot, calls, log := survivor(t, c, task)
	as := st.Attempts
	if len(as) != 2 || as[1].State != Finished || as[1].Resumed != nil || st.Final == nil {
		t.Fatalf("attempts %+v (attempt 2 resumed %+v), final %v\nlog:\n%s", as, as[len(as)-1].Resumed, st.Final, log)
	}
	if !strings.Contains(log, "fetching snapshot "+root) || !strings.Contains(log, "running it from the start") {
		t.Errorf("the log does not say why the attempt ran from the start:\n%s", log)
	}
	if calls == 0 {
		t.Errorf("run from the start with no model request")
	}
	scratch, err := snapshot.Open(filepath.Join(t.TempDir(), "scratch"))
	if err != nil {
		t.Fatal(err)
	}
	wantFinal, wantRoot := uninterrupted(t, task, scratch)
	if got := finalJSON(t, st.Final); got != strings.ReplaceAll(wantFinal, task+"-1", task+"-2") {
		t.Errorf("FinalResult:\n got %s\nwant %s (run id of attempt 2)", got, wantFinal)
	}
	if got := takeRoot(t, scratch, filepath.Join(workRoot, task, "2", "work")); got != wantRoot {
		t.Errorf("the work dir of the rerun is not the uninterrupted run's")
	}
}

// TestResumeAfterWriteOnAnotherWorker: killed in the middle of a round, after its
// write_file call: once after the snapshot that follows the call (the snapshot holds
// what the call wrote, and the resume goes on from the last line), once between the
// call's line and its snapshot's (the last snapshot lacks the call's effect, and the
// resume goes live at the call, which is made again). The killed attempt's work dir is
// on another machine either way. The task pays no model request again and ends with
// the uninterrupted run's FinalResult and files.
func TestResumeAfterWriteOnAnotherWorker(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("starts worker processes")
	}
	for _, tc := range []struct {
		hold string
		back int // lines before the last stored one the resume goes live after
	}{{holdAtWriteSnapshot, 0}, {holdAtWrite, 1}} {
		t.Run(tc.hold, func(t *testing.T) {
			t.Parallel()
			srv, c := testFleet(t)
			task, lines, root := killAt(t, c, srv.URL(), tc.hold)
			st, workRoot, calls, log := survivor(t, c, task)
			as := st.Attempts
			want := Resumption{Attempt: 1, Line: len(lines) - tc.back, Snapshot: root}
			if len(as) != 2 || as[1].State != Finished || as[1].Resumed == nil || *as[1].Resumed != want || st.Final == nil {
				t.Fatalf("attempts %+v (attempt 2 resumed %+v, want %+v), final %v\nlog:\n%s", as, as[len(as)-1].Resumed, want, st.Final, log)
			}
			// The model requests made again: the survivor's, beside the answers the
			// killed attempt's lines hold, against a run with no kill.
			_, perRun := demoEvents(t, testRules(t))
			again := int(calls) + answeredIn(t, lines) - perRun
			if again != 0 {
				t.Errorf("%d model requests made again (the resumed attempt made %d, the stored lines hold %d answers, a run makes %d)\nlog:\n%s",
					again, calls, answeredIn(t, lines), perRun, log)
			}
			scratch, err := snapshot.Open(filepath.Join(t.TempDir(), "scratch"))
			if err != nil {
				t.Fatal(err)
			}
			wantFinal, wantRoot := uninterrupted(t, task, scratch)
			if got := finalJSON(t, st.Final); got != wantFinal {
				t.Errorf("FinalResult:\n got %s\nwant %s", got, wantFinal)
			}
			if got := takeRoot(t, scratch, filepath.Join(workRoot, task, "2", "work")); got != wantRoot {
				t.Errorf("the work dir is not the uninterrupted run's")
			}
			trace, _, err := c.Trace(context.Background(), task, 0)
			if err != nil {
				t.Fatal(err)
			}
			tracetest.AssertReplays(t, trace, testRules(t))
			t.Logf("killed after line %d (%s): resumed after line %d from snapshot %.12s… on another worker, %d model requests made again",
				len(lines), tc.hold, want.Line, root, again)
		})
	}
}

// answeredIn is how many model calls lines hold the answer to.
func answeredIn(t *testing.T, lines [][]byte) int {
	t.Helper()
	n := 0
	for _, l := range lines {
		var e struct{ Kind, Name, Error string }
		if err := json.Unmarshal(l, &e); err != nil {
			t.Fatalf("a stored line is not JSON: %v", err)
		}
		if e.Kind == trace.KindExchange && strings.HasPrefix(e.Name, trace.ExchangeModel) && e.Error == "" {
			n++
		}
	}
	return n
}
