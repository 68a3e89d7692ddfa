package fleet

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/agentspine/spine/snapshot"
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
// continued, and the last of those lines (the line its trace's resumed event follows
// at the latest: a call in flight there is made again).
type Resumption struct {
	Attempt int `json:"attempt"`
	Line    int `json:"line"`
}

// partialRun is what an attempt resumes from: an earlier attempt's stored lines,
// written as a trace file in the attempt's dir (outside its work dir).
//
// It holds the trace lines only; a snapshot of the work dir, when the fleet stores
// them, belongs beside them here, restored into the work dir before the resume.
type partialRun struct {
	from Resumption
	path string
}

// start runs the attempt: resumed from the stored lines of an earlier attempt when the
// worker has a ResumeFunc and an earlier attempt left lines whose chain holds, else from
// the start with taskrun.RunTask.
func (w *Worker) start(ctx context.Context, t Task, n int, dir string, cfg taskrun.Config) (taskrun.Result, error) {
	if w.cfg.Resume == nil {
		return taskrun.RunTask(ctx, cfg)
	}
	p := w.partial(ctx, t, n, dir)
	if p == nil {
		return taskrun.RunTask(ctx, cfg)
	}
	w.cfg.Log(fmt.Sprintf("task %s: attempt %d resumes from attempt %d's line %d", t.ID, n, p.from.Attempt, p.from.Line))
	from := filepath.Join(w.cfg.WorkdirRoot, t.ID, strconv.Itoa(p.from.Attempt), "work")
	if carried, err := carryWorkdir(from, cfg.Workdir, dir); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's work dir: %v; running it from the start", t.ID, p.from.Attempt, err))
		return taskrun.RunTask(ctx, cfg)
	} else if !carried {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's work dir is not on this worker: the resumed run sees the files its task began with", t.ID, p.from.Attempt))
	}
	return w.cfg.Resume(ctx, p.path, cfg)
}

// carryWorkdir copies the work dir an earlier attempt left (from), when it is on this
// worker, into the resuming attempt's (to), through a snapshot kept in the attempt's
// dir (state): the recorded tool calls are served to the resumed run, not made again,
// so their effects on the files come only from there. false: from is not here (the
// attempt ran on another worker; until the fleet stores work-dir snapshots beside the
// lines, the resumed run then sees the files its task began with).
func carryWorkdir(from, to, state string) (bool, error) {
	if fi, err := os.Stat(from); err != nil || !fi.IsDir() {
		return false, nil
	}
	st, err := snapshot.Open(snapshot.DefaultDir(state))
	if err != nil {
		return false, err
	}
	root, _, err := st.Take(from)
	if err != nil {
		return false, err
	}
	return true, st.Restore(root, to)
}

// partial finds what attempt n of t resumes from: of the earlier attempts that ran
// (superseded or refused), the one with the most stored lines, the latest of those
// tied. The attempt's record says it before the run begins. nil: nothing to resume
// (no lines, or none the chain vouches for), and the run starts from nothing.
func (w *Worker) partial(ctx context.Context, t Task, n int, dir string) *partialRun {
	st, err := w.c.Status(ctx, t.ID)
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: reading its attempts to resume one: %v; running it from the start", t.ID, err))
		return nil
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
		return nil
	}
	path := filepath.Join(dir, fmt.Sprintf("attempt-%d.partial.trace.jsonl", from))
	if err := os.WriteFile(path, bytes.Join(best, nil), 0o600); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: writing attempt %d's lines: %v; running it from the start", t.ID, from, err))
		return nil
	}
	c, err := trace.OpenContinuation(path)
	if err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: attempt %d's stored lines cannot be continued: %v; running it from the start", t.ID, from, err))
		return nil
	}
	line, _ := c.Last()
	p := &partialRun{from: Resumption{Attempt: from, Line: line}, path: path}
	if _, err := w.c.update(ctx, t.ID, func(s *Status) bool {
		for i := range s.Attempts {
			if s.Attempts[i].N == n && s.Attempts[i].State == Running {
				r := p.from
				s.Attempts[i].Resumed = &r
				return true
			}
		}
		return false
	}); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: recording that attempt %d resumes: %v", t.ID, n, err))
	}
	return p
}

// forgetLines purges a finished task's stored lines: its accepted trace is in the
// object store, and no attempt of it will resume.
func (w *Worker) forgetLines(ctx context.Context, task string) {
	if err := w.c.dropLines(ctx, task); err != nil {
		w.cfg.Log(fmt.Sprintf("task %s: purging its stored trace lines: %v (they expire after %s)", task, err, LineMaxAge))
	}
}
