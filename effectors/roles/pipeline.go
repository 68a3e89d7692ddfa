package roles

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/trace"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
)

// Defaults of Config.
const (
	DefaultRetryBudget  = 2  // R4a's corrective attempts after the first
	DefaultPlanAttempts = 3  // R2 plans per round before the plan validator gives up
	DefaultToolTurns    = 12 // R3 model turns per attempt
	DefaultMaxSubTasks  = 8
	DefaultParallel     = 4 // subtasks of one sequence number run at once
)

// Config assembles a Pipeline. Models, Tools, Clock and IDs are required.
type Config struct {
	Models Models
	Tools  sandbox.Toolbox
	// Memory calibrates every plan and replan; nil means no memory.
	Memory Calibrator
	// Clock times model and tool calls and the task's elapsed_ms; IDs names subtasks.
	Clock clock.Clock
	IDs   engine.IDSource
	// Clarify asks the user R1's clarifying questions; nil answers every question with
	// nothing, and the task proceeds on its most faithful reading.
	Clarify Clarifier
	// Caution confirms R3's shell and write_file calls while memory advises caution for
	// the intent; nil lets caution shape the plan only. Destructive commands are gated by
	// the sandbox's own Confirmer either way.
	Caution sandbox.Confirmer

	RetryBudget  int // 0 means DefaultRetryBudget; -1 means no corrective attempt
	PlanAttempts int // 0 means DefaultPlanAttempts
	ToolTurns    int // 0 means DefaultToolTurns
	MaxSubTasks  int // 0 means DefaultMaxSubTasks
	Parallel     int // 0 means DefaultParallel

	// Stamps, when set, is asked first for the times a round reports that come from the
	// clock rather than an exchange (a dispatch's time, a report's elapsed time): a
	// resumed run serves the recording's while it re-runs recorded rounds.
	Stamps Stamps

	// Snapshot, when set, stores a snapshot of the work dir and returns its root hash:
	// it is taken before the first round and at the end of every round, and journalled
	// as a SnapshotName exchange. nil: no snapshots, and nothing journalled.
	Snapshot func() (root string, err error)
	// SnapshotTools, with Snapshot, also snapshots the work dir right after every tool
	// call that may have changed it (ToolChangesWorkdir), so that the last snapshot
	// before any line holds the effects of every tool call recorded before it.
	SnapshotTools bool

	// OnStatus hears what a role is working on as it starts, from any goroutine (a
	// spinner). It must not block.
	OnStatus func(Status)
}

// Status is what a role is busy with.
type Status struct {
	Role      string `json:"role"`
	SubTaskID string `json:"subtask_id,omitempty"`
	Text      string `json:"text"`
}

// Clarifier puts R1's clarifying questions to the user, all in one turn, and returns the
// answer; an empty answer means "proceed as you understand it".
type Clarifier interface {
	Clarify(ctx context.Context, questions []string) (string, error)
}

// Pipeline is the role pipeline for one task: Begin names it, then every Round runs R2,
// R3 × N with R4a, and R4b. It is the production ggs.Plant. Rounds must not overlap.
//
// The roles share nothing: each reads its own mailbox on the round's bus.Post and sends
// what it produces there. The pipeline is the runtime around them. It starts each role in
// turn, gives each subtask its own executor and validator, and enforces the round's MUST NOT
// set in code. It hands no role's output to another.
type Pipeline struct {
	cfg   Config
	tools []string // R3's tool names, in the toolbox's order
	specs map[string]contract.ModelTool
	meter usageMeter

	task      contract.TaskSpec // R1's TaskSpec, as R1 produced it
	started   time.Time
	perceived bool // R1 has produced the TaskSpec
	posted    bool // R1's TaskSpec has gone to R2

	r2      planner           // R2's own state
	record  [][]trace.Message // the messages the roles posted, round by round
	current int               // the round in progress (rounds never overlap)
	snap    snapshotter
}

var _ ggs.Plant = (*Pipeline)(nil)

// New checks cfg and returns a pipeline with no task yet.
func New(cfg Config) (*Pipeline, error) {
	if err := cfg.Models.check(); err != nil {
		return nil, err
	}
	if cfg.Tools == nil || cfg.Clock == nil || cfg.IDs == nil {
		return nil, errors.New("roles: Config needs Tools, Clock and IDs")
	}
	setDefault(&cfg.RetryBudget, DefaultRetryBudget)
	if cfg.RetryBudget < 0 {
		cfg.RetryBudget = 0
	}
	setDefault(&cfg.PlanAttempts, DefaultPlanAttempts)
	setDefault(&cfg.ToolTurns, DefaultToolTurns)
	setDefault(&cfg.MaxSubTasks, DefaultMaxSubTasks)
	setDefault(&cfg.Parallel, DefaultParallel)
	p := &Pipeline{cfg: cfg, specs: map[string]contract.ModelTool{}}
	for _, s := range cfg.Tools.Specs() {
		p.tools = append(p.tools, s.Name)
		p.specs[s.Name] = s
	}
	if len(p.tools) == 0 {
		return nil, errors.New("roles: the toolbox declares no tools")
	}
	return p, nil
}

func setDefault(v *int, def int) {
	if *v == 0 {
		*v = def
	}
}

// Task is the TaskSpec R1 produced, once the first round has run.
func (p *Pipeline) Task() contract.TaskSpec { return p.task }

// Usage is the token usage of every model call so far and the number of calls.
func (p *Pipeline) Usage() (contract.ModelUsage, int) { return p.meter.get() }

func (p *Pipeline) model(role llm.RoleName, rec recorder) llm.ChatModel {
	return journalledModel{role: role, m: p.cfg.Models[role], rec: rec, clock: p.cfg.Clock, meter: &p.meter}
}

func (p *Pipeline) status(role llm.RoleName, subtask, text string) {
	if p.cfg.OnStatus != nil {
		p.cfg.OnStatus(Status{Role: string(role), SubTaskID: subtask, Text: text})
	}
}

// Stamps serves clock readings a round reports; ok false means read the clock.
type Stamps interface {
	DispatchedAt() (string, bool)
	ElapsedMS() (int64, bool)
}

func (p *Pipeline) elapsedMS() int64 {
	if p.cfg.Stamps != nil {
		if ms, ok := p.cfg.Stamps.ElapsedMS(); ok {
			return ms
		}
	}
	ms := p.cfg.Clock.Now().Sub(p.started).Milliseconds()
	return max(ms, 0)
}

// Round runs one round for GGS: on the first, R1 reads the task; R2 plans from its mailbox (the TaskSpec on the first round, GGS's PlanDirective
// on the others), the subtasks run with the fast loop, and R4b posts its report to R7.
// A fault of the machinery — a role's model down through its retries, an answer that
// broke its contract after the corrective turn, a planner cornered by the MUST NOT set —
// still ends in a report, which carries the fault for the GGS rules to decide on. An
// error means the round could not produce a report at all (a message was not what its
// contract says). A cancelled context still ends in a report.
//
// With Config.Snapshot, the work dir is snapshotted before the first round and after
// every round that produced a report (and with SnapshotTools after every tool call that
// may have changed it).
func (p *Pipeline) Round(ctx context.Context, loopPost *bus.Post, in ggs.RoundInput) error {
	if p.task.TaskID == "" {
		return errors.New("roles: Round before Begin")
	}
	if in.TaskID != p.task.TaskID {
		return fmt.Errorf("roles: round for task %q, the pipeline's task is %q", in.TaskID, p.task.TaskID)
	}
	p.record = append(p.record, nil)
	p.current = in.Round
	rec := journalRecorder{j: engine.JournalFrom(ctx), log: &p.record[len(p.record)-1]}
	if len(p.record) == 1 {
		if err := p.snapshotWorkdir(ctx, rec, in.Round, SnapshotStart); err != nil {
			return err
		}
	}
	if err := p.round(ctx, loopPost, rec, in); err != nil {
		return err
	}
	return p.snapshotWorkdir(ctx, rec, in.Round, SnapshotEnd)
}

// round is Round's work between its snapshots.
func (p *Pipeline) round(ctx context.Context, loopPost *bus.Post, rec journalRecorder, in ggs.RoundInput) error {
	post := loopPost.Branch(rec)
	if !p.posted {
		if !p.perceived {
			if _, err := p.perceive(ctx, rec); err != nil {
				return p.faulted(ctx, post, llm.R1, "reading the task", err)
			}
		}
		if _, err := post.Send("R1", "R2", contract.TypeTaskSpec, p.task.TaskID, p.task); err != nil {
			return err
		}
		p.posted = true
	}
	if err := p.r2.receive(post, in.Round); err != nil {
		return err
	}
	p.r2.rulings = rulingMap(in.Rulings)
	q := p.r2.query(p.tools)
	cal, err := p.calibrate(ctx, rec, post, q)
	if err != nil {
		return p.interrupted(ctx, post, "calibrating", err)
	}
	if err := p.plan(ctx, rec, post, in.Round, &cal, q); err != nil {
		return p.faulted(ctx, post, llm.R2, "planning", err)
	}
	if err := p.dispatch(ctx, rec, post, p.r2.guard(cal, p.tools)); err != nil {
		return p.interrupted(ctx, post, "executing", err)
	}
	if err := p.metaValidate(ctx, rec, post); err != nil {
		return p.interrupted(ctx, post, "validating", err)
	}
	return nil
}

var _ ggs.PairSource = (*Pipeline)(nil)

// ReadsMemory reports whether the pipeline has a memory to calibrate against.
func (p *Pipeline) ReadsMemory() bool { return p.cfg.Memory != nil }

// MemoryPairs is what memory holds, before a round, on the pairs its plan can touch: every
// tool R3 has, and the tools on the targets the last plan used and the last directive
// blocked (R2's query without the intent, whose verdict is prompt text, not a pair a plan
// can be held to). Only pairs memory has a verdict on are returned; the read is
// journalled in the observe call. No memory, no pairs.
func (p *Pipeline) MemoryPairs(ctx context.Context, in ggs.RoundInput) ([]ggs.PairPotentials, error) {
	if p.cfg.Memory == nil || in.TaskID != p.task.TaskID {
		return nil, nil
	}
	q := p.r2.query(p.tools)
	q.Intent = ""
	rec := journalRecorder{j: engine.JournalFrom(ctx)}
	cal, err := p.calibrate(ctx, rec, bus.NewPost(rec), q)
	if err != nil {
		return nil, err
	}
	out := make([]ggs.PairPotentials, 0, len(cal.Verdicts))
	for _, v := range cal.Verdicts {
		space, entity, ok := strings.Cut(v.Pair, " × ")
		if !ok {
			continue
		}
		out = append(out, ggs.PairPotentials{Space: space, Entity: entity, MAtt: v.Attention, MDec: v.Decision, Action: v.Action})
	}
	return out, nil
}

// interrupted ends a round that the cancelling of ctx cut short. The round still ends in a
// report — R4b, reading the unfinished subtasks as failed, asks GGS to abandon — so that
// the effector call completes and the engine stops at its next state boundary, which a
// replay reproduces; GGS never acts on the report. Errors other than the cancellation are
// returned as they are.
func (p *Pipeline) interrupted(ctx context.Context, post *bus.Post, stage string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	r4b, _ := p.r4bInbox(post) // the cancellation is the story; what R4b could read is reported
	rq := &contract.ReplanRequest{TaskID: p.task.TaskID, Intent: p.task.Intent, FailedSubTasks: []string{},
		Outcomes: []contract.SubTaskOutcome{}, ElapsedMS: p.elapsedMS(), Recommendation: "abandon"}
	done := 0
	for _, id := range r4b.manifest.SubTaskIDs {
		o, ok := r4b.outcomes[id]
		if !ok {
			o = unfinished(id, p.task.TaskID, "interrupted before it finished")
		}
		if o.Status == contract.OutcomeFailed {
			rq.FailedSubTasks = append(rq.FailedSubTasks, o.SubTaskID)
		} else {
			done++
		}
		rq.Outcomes = append(rq.Outcomes, o)
	}
	rq.GapSummary = fmt.Sprintf("interrupted while %s (%v): %d of %d subtask(s) finished; the run stops here",
		stage, ctx.Err(), done, len(r4b.manifest.SubTaskIDs))
	_, serr := post.Send("R4b", "R7", contract.TypeReplanRequest, p.task.TaskID, rq)
	return serr
}

// calibrate asks memory about what q names, on the bus: R2 posts a MemoryQuery to R5,
// R5 reads it, reads the store and posts its MemoryAnswer to R2, which R2 reads; so the
// trace and the Auditor see what memory told the planner. The exchange with the store
// is journalled between the two messages. A memory failure is on record (the answer's
// error and the exchange's) and the round goes on without memory: calibration advises
// the plan, it is not the plan.
func (p *Pipeline) calibrate(ctx context.Context, rec recorder, post *bus.Post, q contract.MemoryQuery) (Calibration, error) {
	if p.cfg.Memory == nil {
		return Calibration{}, nil
	}
	p.status(llm.R2, "", "calibrating against memory")
	// R2's and R5's mailboxes of this read alone: a read by a parallel subtask, or R2's
	// other mail, never meets it.
	mail := post.Branch(rec, "R2", "R5")
	if _, err := mail.Send("R2", "R5", contract.TypeMemoryQuery, p.task.TaskID, q); err != nil {
		return Calibration{}, err
	}
	if err := p.serveMemory(ctx, rec, mail); err != nil {
		return Calibration{}, err
	}
	a, _, err := bus.Receive[contract.MemoryAnswer](mail, "R2", contract.TypeMemoryAnswer)
	if err != nil || a.Error != "" {
		return Calibration{}, err
	}
	return calibrationOf(a), nil
}

// serveMemory is R5 serving a read: it takes the MemoryQuery from its mailbox, asks the
// store and posts the answer to R2. Only a cancelled ctx leaves the query unanswered.
func (p *Pipeline) serveMemory(ctx context.Context, rec recorder, mail *bus.Post) error {
	q, _, err := bus.Receive[contract.MemoryQuery](mail, "R5", contract.TypeMemoryQuery)
	if err != nil {
		return err
	}
	start := p.cfg.Clock.Now()
	cal, err := p.cfg.Memory.Calibrate(ctx, q)
	x := engine.Exchange{Name: trace.ExchangeMemory + "calibrate", Request: q,
		DurationMS: p.cfg.Clock.Now().Sub(start).Milliseconds()}
	var a contract.MemoryAnswer
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		x.Error = err.Error()
		a.Error = err.Error()
	} else {
		x.Response = cal
		a = cal.answer()
	}
	rec.exchange(x)
	_, err = mail.Send("R5", "R2", contract.TypeMemoryAnswer, p.task.TaskID, a)
	return err
}
