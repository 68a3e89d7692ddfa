package taskrun

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Opened is an interrupted run's trace opened to be resumed: the verified recording, why
// it stopped, and what its header says the run was.
type Opened struct {
	Continuation *trace.Continuation
	Recording    *replay.Recording
	Rules        *ruleset.RuleSet
	Task         string // the task's words (the header's raw_input)
	Workdir      string // the header's work dir
	BaseURL      string // the header's endpoint
	Model        string // the one model every role used, "" when they differ
	// Ended is the recording's ending when the run already ended (a halt that is not a
	// cancellation): nothing is left to resume.
	Ended string
	// Stopped is why the recording stopped, for the resumed line: what the trace says
	// (Continuation.Stopped), to which a host may add what it knows (a fleet: the
	// attempt it superseded).
	Stopped string
}

// OpenResume reads a trace to resume it: its chain verified to its last complete line (a
// torn last line dropped: see Continuation.Dropped), its rules the recorded ones, and the
// run's task, work dir and endpoint from its header.
func OpenResume(path string) (*Opened, error) {
	c, err := trace.OpenContinuation(path)
	if err != nil {
		return nil, err
	}
	rec, err := replay.NewRecording(path, c.File)
	if err != nil {
		return nil, err
	}
	h := rec.Header
	o := &Opened{Continuation: c, Recording: rec, Task: h.Meta["raw_input"], Workdir: h.Meta["workdir"], BaseURL: h.Meta["base_url"]}
	if strings.TrimSpace(o.Task) == "" {
		return nil, fmt.Errorf("%s:1: the header records no task (meta raw_input): not a trace of spine run", path)
	}
	if h.Meta["memory"] != "" {
		return nil, fmt.Errorf("%s:1: the run used shared memory (%s): a resume would write the re-run rounds' tallies again; resuming with memory is not supported", path, h.Meta["memory"])
	}
	models := map[string]bool{}
	for _, rm := range strings.Fields(h.Meta["models"]) {
		if _, m, ok := strings.Cut(rm, "="); ok {
			models[m] = true
			o.Model = m
		}
	}
	if len(models) != 1 {
		o.Model = ""
	}
	o.Stopped = c.Stopped()
	if halt, ok := c.Halt(); ok && halt.Outcome != engine.OutcomeCanceled {
		o.Ended = c.Stopped()
	}
	if o.Rules, err = rec.RecordedRules(); err != nil {
		return nil, err
	}
	return o, nil
}

// resumption is what RunTask does differently for a resumed run: the recording's header,
// rules, run id and first lines, the exchanger that serves the recording, and the values
// the pipeline took from its clock and ids then.
type resumption struct {
	opened *Opened
	cont   *replay.Continue
	stamps *recordedStamps
}

// Resume continues the run o's trace recorded: the recording is replayed with every
// effector call re-run against it (the role pipeline's model and tool calls served from
// the recording, so that its state is rebuilt and nothing the trace holds is asked
// again), and at the first exchange the recording lacks the run goes live with cfg's
// endpoint. The new trace at cfg.TracePath (default: beside the recording, never over
// it) begins with the recording's lines byte for byte, then a resumed line, then the
// live run. cfg.Task, Rules, RunID, Meta and MaxIterations are the recording's.
func Resume(ctx context.Context, o *Opened, cfg Config, host string) (Result, replay.Switch, error) {
	if o.Ended != "" {
		return Result{}, replay.Switch{}, fmt.Errorf("%s: the run already ended (%s): nothing to resume", o.Continuation.Name, o.Ended)
	}
	if n, err := o.coverTools(); err != nil {
		return Result{}, replay.Switch{}, err
	} else if n > 0 && cfg.Warn != nil {
		cfg.Warn(fmt.Sprintf("line %d records a tool call after the last snapshot of the work dir, which does not hold its effect: resuming from line %d, the call made again", n, n-1))
	}
	return continueRecording(ctx, o, cfg, replay.ContinueOptions{Rerun: true, Host: host, Stopped: o.Stopped})
}

// continueRecording runs o's recording continued as opts say (a resume, or a fork at a
// boundary), every effector call before the switch re-run against the recording.
func continueRecording(ctx context.Context, o *Opened, cfg Config, opts replay.ContinueOptions) (Result, replay.Switch, error) {
	h := o.Recording.Header
	cont, err := replay.NewContinue(o.Recording, opts)
	if err != nil {
		return Result{}, replay.Switch{}, err
	}
	cfg.Task, cfg.Rules, cfg.RulesPath, cfg.Watch = o.Task, o.Rules, "", false
	cfg.RunID, cfg.MaxIterations, cfg.Meta = h.Run, h.Limits.MaxIterations, nil
	cfg.MemoryDir, cfg.Memory, cfg.Clarify, cfg.Caution = "", nil, nil, nil
	if cfg.Workdir == "" {
		cfg.Workdir = o.Workdir
	}
	if cfg.TracePath == "" {
		cfg.TracePath = FreshPath(o.Continuation.Name)
	}
	// A recording's rounds hold their snapshot exchanges when it took snapshots, and
	// none when not: the re-run asks for them exactly where the recording made them,
	// and the live part goes on as the recording did.
	if h.Meta[MetaSnapshots] == "" {
		cfg.Snapshots = nil
	} else if cfg.Snapshots == nil {
		if cfg.Snapshots, err = o.SnapshotStore(); err != nil {
			return Result{}, replay.Switch{}, err
		}
	}
	cfg.defaults()
	r := &resumption{opened: o, cont: cont, stamps: stampsOf(o.Recording, cont, cfg.Clock, cfg.IDs)}
	cfg.resume = r
	res, err := RunTask(ctx, cfg)
	sw, _ := cont.Switched()
	return res, sw, err
}

// engineOptions are the recording's limits and rule naming, and the continuing exchanger.
func (r *resumption) engineOptions() []engine.Option {
	h := r.opened.Recording.Header
	return []engine.Option{r.cont.Option(), engine.WithMaxFirings(h.Limits.MaxFirings),
		engine.WithRecordedRules(h.Rules.Path, h.Rules.Source != "")}
}

// createTrace starts the continued trace, held to the recording's lines before its
// resumed line.
func (r *resumption) createTrace(path string) (*trace.FileSink, error) {
	if _, err := os.Stat(path); err == nil {
		return nil, fmt.Errorf("%s already exists; a trace is never overwritten", path)
	}
	return r.opened.Continuation.Create(path)
}

// recordedStamps serves, until the run goes live, the subtask ids, dispatch times and
// elapsed times the recording's messages hold, in the order the pipeline made them: they
// came from the pipeline's clock and id source, not from an exchange. After the switch,
// or past what the recording holds, ids are new and times are read from the clock (the
// elapsed time since the recorded run began).
type recordedStamps struct {
	cont  *replay.Continue
	live  engine.IDSource
	clock clock.Clock
	began time.Time // the recording's first line

	mu                sync.Mutex
	ids, dispatched   []string
	elapsed           []int64
	nID, nDisp, nElap int
}

var _ roles.Stamps = (*recordedStamps)(nil)

// stampsOf reads the stamps from the recording's messages.
func stampsOf(rec *replay.Recording, cont *replay.Continue, c clock.Clock, live engine.IDSource) *recordedStamps {
	s := &recordedStamps{cont: cont, live: live, clock: c}
	if len(rec.Events) > 0 {
		s.began = rec.Events[0].Time
	}
	for i := range rec.Events {
		m, ok := trace.As[trace.Message](&rec.Events[i])
		if !ok {
			continue
		}
		var p struct {
			SubTaskID    string `json:"subtask_id"`
			DispatchedAt string `json:"dispatched_at"`
			ElapsedMS    int64  `json:"elapsed_ms"`
		}
		if json.Unmarshal(m.Payload, &p) != nil {
			continue
		}
		switch m.Type {
		case contract.TypeSubTask:
			if m.From == "R2" {
				s.ids = append(s.ids, p.SubTaskID)
			}
		case contract.TypeDispatchManifest:
			s.dispatched = append(s.dispatched, p.DispatchedAt)
		case contract.TypeOutcomeSummary, contract.TypeReplanRequest:
			if m.From == "R4b" {
				s.elapsed = append(s.elapsed, p.ElapsedMS)
			}
		}
	}
	return s
}

func (s *recordedStamps) replaying() bool {
	_, live := s.cont.Switched()
	return !live
}

// NewID is the recorded subtask id while the run re-runs the recording.
func (s *recordedStamps) NewID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nID < len(s.ids) && s.replaying() {
		s.nID++
		return s.ids[s.nID-1]
	}
	return s.live.NewID()
}

// DispatchedAt is the recorded dispatch time while the run re-runs the recording.
func (s *recordedStamps) DispatchedAt() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nDisp < len(s.dispatched) && s.replaying() {
		s.nDisp++
		return s.dispatched[s.nDisp-1], true
	}
	return "", false
}

// ElapsedMS is the recorded elapsed time while the run re-runs the recording, then the
// time since the recorded run began (the interruption included).
func (s *recordedStamps) ElapsedMS() (int64, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nElap < len(s.elapsed) && s.replaying() {
		s.nElap++
		return s.elapsed[s.nElap-1], true
	}
	if s.began.IsZero() {
		return 0, false
	}
	return max(s.clock.Now().Sub(s.began).Milliseconds(), 0), true
}
