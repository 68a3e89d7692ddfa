package roles

import (
	"context"
	"errors"
	"github.com/agentspine/spine/spine/trace"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
)

// TaskOptions configure Run.
type TaskOptions struct {
	// Rules is a GGS rule set (rules/ggs.yaml or an edited copy).
	Rules *engine.RuleSet
	// Engine options: the trace sink, clock, id source, run id, limits. Meta is given
	// below instead, because Run adds the task's fields to it.
	Engine []engine.Option
	// Meta goes into the trace header, with task_id, intent and raw_input added.
	Meta map[string]string
	// GGS options, e.g. ggs.WithMemory for GGS's Megram writes.
	GGS []ggs.Option
	// OnMessage sees GGS's messages (ReplanRequest, OutcomeSummary, PlanDirective,
	// FinalResult); the roles' own messages go to Config.OnMessage.
	OnMessage func(trace.Message)
}

// TaskResult is how a task ended.
type TaskResult struct {
	Task   contract.TaskSpec
	Result engine.Result
	// Final is GGS's FinalResult. A run cancelled, at its iteration bound or stopped by
	// an effector's error has one too, decided by a rule with the interruption as its
	// reason; it is nil only when the run could not even reach a rule (an error of the
	// trace, a replay departing from its recording) or the rules chose no ending.
	Final *contract.FinalResult
	// Failure is R2's graceful failure when GGS abandoned the task, as the FinalResult
	// carries it.
	Failure *GracefulFailure
}

// Run drives the task that Begin named through the spine engine with GGS as its
// effector and this pipeline as GGS's plant, until a terminal macro-state, the
// iteration bound, an error or the cancelling of ctx (the engine stops at its next
// state boundary and the trace ends with a halt event either way).
func (p *Pipeline) Run(ctx context.Context, o TaskOptions) (TaskResult, error) {
	if p.task.TaskID == "" {
		return TaskResult{}, errors.New("roles: Run before Begin")
	}
	loop, err := ggs.NewLoop(o.Rules, p, p.task, o.GGS...)
	if err != nil {
		return TaskResult{}, err
	}
	loop.OnMessage = o.OnMessage
	meta := map[string]string{}
	for k, v := range o.Meta {
		meta[k] = v
	}
	// R1 reads the task in the first round, after the header: the intent is in its
	// TaskSpec message, not here.
	meta["task_id"], meta["raw_input"] = p.task.TaskID, p.task.RawInput
	opts := append(append([]engine.Option(nil), o.Engine...), engine.WithMeta(meta))
	eng := engine.NewEngine(o.Rules, loop.Effector(), opts...)
	if err := loop.Seed(eng.Session()); err != nil {
		return TaskResult{Task: p.task}, err
	}
	res, err := eng.Run(ctx)
	out := TaskResult{Task: p.task, Result: res, Final: loop.Final}
	if loop.Final != nil {
		out.Failure = loop.Final.Failure
	}
	return out, err
}
