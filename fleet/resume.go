package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/snapshot"
	"github.com/agentspine/spine/snapshot/tracerefs"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// ResumeFunc continues a run from the partial trace of an earlier attempt of the same
// task (partialTracePath, complete lines whose chain holds), writing the continued
// trace at cfg.TracePath. cfg is what the attempt would give taskrun.RunTask; the
// function must put cfg.WrapSink on the sink of the trace file as RunTask does, so the
// continued trace's lines are stored as they are written too.
type ResumeFunc func(ctx context.Context, partialTracePath string, cfg taskrun.Config) (taskrun.Result, error)

// Resumption says where an attempt resumed: the earlier attempt whose stored lines it
// continued, the last of those lines (the line its trace's resumed event follows at the
// latest: a call in flight there is made again), and the work-dir snapshot it restored
// first (the last those lines record; "" when they record none).
type Resumption struct {
	Attempt  int    `json:"attempt"`
	Line     int    `json:"line"`
	Snapshot string `json:"snapshot,omitempty"`
}

// partialRun is what an attempt resumes from: an earlier attempt's stored lines,
// written as a trace file in the attempt's dir (outside its work dir).
type partialRun struct {
	from Resumption
	path string
}

// start runs the attempt: resumed from p when there is one, else from the start with
// taskrun.RunTask.
func (w *Worker) start(ctx context.Context, p *partialRun, cfg taskrun.Config) (taskrun.Result, error) {
	if p == nil {
		return taskrun.RunTask(ctx, cfg)
	}
	return w.cfg.Resume(ctx, p.path, cfg)
}

// resumePoint finds what attempt n of t continues from and makes its work dir what the
// run had there, then records the resumption in the attempt's status. nil: the attempt
// runs from the start (the worker has no ResumeFunc, or no earlier attempt left lines
// the chain vouches for, or none of the rules below can give it its files).
//
// A resumed run is served the recorded tool calls, not made again, so its files must
// be those the recording had. A run snapshots its work dir right after every tool call
// that may change it (taskrun.Config.Snapshots), so the last snapshot the lines record
// holds what every call before it did:
//   - it is fetched from the fleet's store into cfg.Snapshots (a store in the attempt's
//     dir when nil), every hash checked, and restored, and the run resumes from the last
//     line; when a tool call follows that snapshot (the kill fell between a call's line
//     and its snapshot's, or the lines are of a run that snapshotted only at round
//     boundaries), the resume goes live at that call (taskrun.Resume), which is made
//     again: at-least-once, never over wrong files;
//   - only when it cannot be fetched whole (an object missing, expired or corrupt), or
//     when the lines record none: the earlier attempt's own work dir if it is on this
//     machine (carryWorkdir), else, for lines with a snapshot, the attempt runs from the
//     start in the work dir Prepare made and pays its model calls again, and for lines
//     without one, it resumes with the files the task began with.
//
// A fetched snapshot that cannot be restored fails the attempt's start, and the task
// is tried again.
func (w *Worker) resumePoint(ctx context.Context, t Task, n int, dir string, cfg *taskrun.Config) (*partialRun, error) {
	if w.cfg.Resume == nil {
		return nil, nil
	}
	p, lines := w.partial(ctx, t, n, dir)
	if p == nil {
		return nil, nil
	}
	here := filepath.Join(w.cfg.WorkdirRoot, t.ID, strconv.Itoa(p.from.Attempt), "work")
	if fi, err := os.Stat(here); err != nil || !fi.IsDir() {
		here = ""
	}
	root, at := tracerefs.LastRoot(lines)
	if root != "" {
		if call := tracerefs.ToolCallAfter(lines, at, roles.ToolChangesWorkdir); call > 0 {
			w.cfg.Log(fmt.Sprintf("task %s: attempt %d's line %d records a tool call after its last snapshot (line %d): the resume goes live there, the call made again", t.ID, p.from.Attempt, call, at))
			p.from.Line = call - 1
		}
		restored, err := w.restore(ctx, t, p.from.Attempt, root, dir, cfg)
		if err != nil {
			return nil, err
		}
		if restored {
			p.from.Snapshot = root
			w.recordResumption(ctx, t.ID, n, p.from)
			w.cfg.Log(fmt.Sprintf("task %s: attempt %d resumes from attempt %d's line %d", t.ID, n, p.from.Attempt, p.from.Line))
			return p, nil
		}
		if here == "" {
			w.cfg.Log(fmt.Sprintf("task %s: running it from the start", t.ID))
			return nil, nil
		}
	}
	if here == "" {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's work dir is not on this worker and its lines record no snapshot: the resumed run sees the files its task began with", t.ID, p.from.Attempt))
	} else if err := carryWorkdir(here, cfg.Workdir, dir); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's work dir: %v; running it from the start", t.ID, p.from.Attempt, err))
		return nil, nil
	}
	w.recordResumption(ctx, t.ID, n, p.from)
	w.cfg.Log(fmt.Sprintf("task %s: attempt %d resumes from attempt %d's line %d", t.ID, n, p.from.Attempt, p.from.Line))
	return p, nil
}

// restore fetches snapshot root from the fleet into cfg.Snapshots (a store in the
// attempt's dir when nil, then the run's) and restores it into the work dir. false: it
// could not be fetched whole (said in the log); an error: fetched, not restored.
func (w *Worker) restore(ctx context.Context, t Task, from int, root, dir string, cfg *taskrun.Config) (bool, error) {
	if cfg.Snapshots == nil {
		store, err := snapshot.Open(snapshot.DefaultDir(dir))
		if err != nil {
			w.cfg.Log(fmt.Sprintf("task %s: a snapshot store to restore attempt %d's work dir: %v", t.ID, from, err))
			return false, nil
		}
		cfg.Snapshots = store
	}
	st, err := w.c.fetchSnapshot(ctx, cfg.Snapshots, root)
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's work dir: %v", t.ID, from, err))
		return false, nil
	}
	if err := cfg.Snapshots.Restore(root, cfg.Workdir); err != nil {
		return false, fmt.Errorf("restoring attempt %d's work dir (snapshot %s): %w", from, root, err)
	}
	w.cfg.Log(fmt.Sprintf("task %s: attempt %d's work dir restored from snapshot %.12s… (%d file content(s), %d bytes fetched)", t.ID, from, root, st.Blobs, st.Bytes))
	return true, nil
}

// carryWorkdir copies the work dir an earlier attempt left on this worker (from) into
// the resuming attempt's (to), through a snapshot kept in the attempt's dir (state).
func carryWorkdir(from, to, state string) error {
	st, err := snapshot.Open(snapshot.DefaultDir(state))
	if err != nil {
		return err
	}
	root, _, err := st.Take(from)
	if err != nil {
		return err
	}
	return st.Restore(root, to)
}

// partial finds what attempt n of t resumes from: of the earlier attempts that ran
// (superseded or refused), the one with the most stored lines, the latest of those
// tied; and those lines. nil: nothing to resume (no lines, or none the chain vouches
// for), and the run starts from nothing.
func (w *Worker) partial(ctx context.Context, t Task, n int, dir string) (*partialRun, [][]byte) {
	st, err := w.c.Status(ctx, t.ID)
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: reading its attempts to resume one: %v; running it from the start", t.ID, err))
		return nil, nil
	}
	var best [][]byte
	from := 0
	for _, a := range st.Attempts {
		if a.N >= n || a.State != Superseded && a.State != Refused {
			continue
		}
		lines, err := w.c.attemptLines(ctx, t.ID, a.N)
		if err != nil {
			w.cfg.Log(fmt.Sprintf("task %s: the stored lines of attempt %d: %v", t.ID, a.N, err))
			continue
		}
		if len(lines) > 0 && len(lines) >= len(best) {
			best, from = lines, a.N
		}
	}
	if from == 0 {
		return nil, nil
	}
	path := filepath.Join(dir, fmt.Sprintf("attempt-%d.partial.trace.jsonl", from))
	if err := os.WriteFile(path, bytes.Join(best, nil), 0o600); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: writing attempt %d's lines: %v; running it from the start", t.ID, from, err))
		return nil, nil
	}
	c, err := trace.OpenContinuation(path)
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's stored lines cannot be continued: %v; running it from the start", t.ID, from, err))
		return nil, nil
	}
	line, _ := c.Last()
	return &partialRun{from: Resumption{Attempt: from, Line: line}, path: path}, best[:min(line, len(best))]
}

// recordResumption says in attempt n's status, before its run begins, what it resumes from.
func (w *Worker) recordResumption(ctx context.Context, task string, n int, from Resumption) {
	if _, err := w.c.update(ctx, task, func(s *Status) bool {
		for i := range s.Attempts {
			if s.Attempts[i].N == n && s.Attempts[i].State == Running {
				r := from
				s.Attempts[i].Resumed = &r
				return true
			}
		}
		return false
	}); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: recording that attempt %d resumes: %v", task, n, err))
	}
}

// forgetLines purges a finished task's stored lines: its accepted trace is in the
// object store, and no attempt of it will resume.
func (w *Worker) forgetLines(ctx context.Context, task string) {
	if err := w.c.dropLines(ctx, task); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: purging its stored trace lines: %v (they expire after %s)", task, err, LineMaxAge))
	}
}
