package roles

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine"
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
	Clock spine.Clock
	IDs   spine.IDSource
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

	// OnMessage sees every message the roles journal, in journal order (a live display).
	OnMessage func(spine.Message)
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

// Pipeline is the role pipeline for one task: Perceive runs R1, then every Round runs R2,
// R3 × N with R4a, and R4b. It is the production ggs.Plant. Rounds must not overlap.
type Pipeline struct {
	cfg   Config
	tools []string // R3's tool names, in the toolbox's order
	specs map[string]sandbox.ToolSpec
	meter usageMeter

	task    contract.TaskSpec
	started time.Time
	pending buffer // R1's journal entries, written at the head of the first round
	rounds  []roundRecord
}

var _ ggs.Plant = (*Pipeline)(nil)

// roundRecord keeps what a round did, for the next plan and the graceful failure.
type roundRecord struct {
	round     int
	directive *contract.PlanDirective
	plan      []Assignment
	signature string
	outcomes  []contract.SubTaskOutcome
	report    ggs.Report
}

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
	p := &Pipeline{cfg: cfg, specs: map[string]sandbox.ToolSpec{}}
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

// Task is the TaskSpec R1 produced, once Perceive has run.
func (p *Pipeline) Task() contract.TaskSpec { return p.task }

// Usage is the token usage of every model call so far and the number of calls.
func (p *Pipeline) Usage() (llm.Usage, int) { return p.meter.get() }

func (p *Pipeline) model(role llm.RoleName, rec recorder) llm.ChatModel {
	return journalledModel{role: role, m: p.cfg.Models[role], rec: rec, clock: p.cfg.Clock, meter: &p.meter}
}

func (p *Pipeline) status(role llm.RoleName, subtask, text string) {
	if p.cfg.OnStatus != nil {
		p.cfg.OnStatus(Status{Role: string(role), SubTaskID: subtask, Text: text})
	}
}

func (p *Pipeline) elapsedMS() int64 {
	ms := p.cfg.Clock.Now().Sub(p.started).Milliseconds()
	return max(ms, 0)
}

// Round runs one round for GGS: calibrate, plan, execute with the fast loop, validate.
// An error means the round could not produce a report (the context was cancelled, or R2
// could not produce an acceptable plan); every other failure is reported to GGS.
func (p *Pipeline) Round(ctx context.Context, in ggs.RoundInput) (ggs.Report, error) {
	if p.task.TaskID == "" {
		return ggs.Report{}, errors.New("roles: Round before Perceive")
	}
	if in.TaskID != p.task.TaskID {
		return ggs.Report{}, fmt.Errorf("roles: round for task %q, the pipeline's task is %q", in.TaskID, p.task.TaskID)
	}
	rec := journalRecorder{j: spine.JournalFrom(ctx), taskID: p.task.TaskID, onMessage: p.cfg.OnMessage}
	p.pending.flush(rec)

	cal, err := p.calibrate(ctx, rec)
	if err != nil {
		return p.interrupted(ctx, "calibrating", nil, nil, err)
	}
	pl, err := p.plan(ctx, rec, in, cal)
	if err != nil {
		return p.interrupted(ctx, "planning", nil, nil, err)
	}
	outcomes, err := p.dispatch(ctx, rec, pl)
	if err != nil {
		return p.interrupted(ctx, "executing", pl.assignments, outcomes, err)
	}
	rep, err := p.metaValidate(ctx, rec, pl, outcomes)
	if err != nil {
		return p.interrupted(ctx, "validating", pl.assignments, outcomes, err)
	}
	p.rounds = append(p.rounds, roundRecord{round: in.Round, directive: in.Directive, plan: pl.assignments,
		signature: pl.signature, outcomes: outcomes, report: rep})
	return rep, nil
}

// interrupted ends a round that the cancelling of ctx cut short. The round still ends in a
// report — R4b's gate, reading the unfinished subtasks as failed, asks GGS to abandon —
// so that the effector call completes and the engine stops at its next state boundary,
// which a replay reproduces; GGS never acts on the report. Errors other than the
// cancellation are returned as they are.
func (p *Pipeline) interrupted(ctx context.Context, stage string, plan []Assignment, outcomes []contract.SubTaskOutcome, err error) (ggs.Report, error) {
	if ctx.Err() == nil {
		return ggs.Report{}, err
	}
	rq := &contract.ReplanRequest{TaskID: p.task.TaskID, Intent: p.task.Intent, FailedSubTasks: []string{},
		Outcomes: []contract.SubTaskOutcome{}, ElapsedMS: p.elapsedMS(), Recommendation: "abandon"}
	done := 0
	for i, a := range plan {
		var o contract.SubTaskOutcome
		if i < len(outcomes) {
			o = outcomes[i]
		}
		if o.Status == "" {
			reason := "interrupted before it finished"
			o = contract.SubTaskOutcome{SubTaskID: a.SubTaskID, ParentTaskID: p.task.TaskID, Status: contract.OutcomeFailed,
				FailureReason: &reason, CriteriaVerdicts: []contract.CriterionVerdict{}, GapTrajectory: []contract.GapAttempt{},
				ToolCalls: []string{}}
		}
		if o.Status == contract.OutcomeFailed {
			rq.FailedSubTasks = append(rq.FailedSubTasks, o.SubTaskID)
		} else {
			done++
		}
		rq.Outcomes = append(rq.Outcomes, o)
	}
	rq.GapSummary = fmt.Sprintf("interrupted while %s (%v): %d of %d subtask(s) finished; the run stops here", stage, ctx.Err(), done, len(plan))
	return ggs.Report{Replan: rq}, nil
}

// calibrate asks memory about the intent. A memory failure is on record in the trace and
// the round goes on without memory: calibration advises the plan, it is not the plan.
func (p *Pipeline) calibrate(ctx context.Context, rec recorder) (Calibration, error) {
	if p.cfg.Memory == nil {
		return Calibration{}, nil
	}
	p.status(llm.R2, "", "calibrating against memory")
	start := p.cfg.Clock.Now()
	cal, err := p.cfg.Memory.Calibrate(ctx, p.task.Intent)
	x := spine.Exchange{Name: "memory:calibrate", Request: map[string]string{"intent": p.task.Intent},
		DurationMS: p.cfg.Clock.Now().Sub(start).Milliseconds()}
	if err != nil {
		if ctx.Err() != nil {
			return Calibration{}, ctx.Err()
		}
		x.Error = err.Error()
		rec.exchange(x)
		return Calibration{}, nil
	}
	x.Response = cal
	rec.exchange(x)
	return cal, nil
}
