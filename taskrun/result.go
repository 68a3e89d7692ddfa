package taskrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/spine/trace"
)

// Accepted reports whether the task ended as a run should: without an error, with a
// FinalResult that does not abandon it.
func Accepted(res ggsrun.TaskResult, runErr error) bool {
	return runErr == nil && res.Final != nil && res.Final.Directive != contract.DirectiveAbandon
}

// Canceled reports whether the run was stopped on request rather than failed.
func Canceled(runErr error) bool { return errors.Is(runErr, context.Canceled) }

// MemoryLost says which of the Megrams GGS sent to the memory in dir did not reach the
// store, nil when all did (or the run had no memory). Whatever the task's outcome, what
// it taught memory is then missing: a fault of the run.
func (r Result) MemoryLost(dir string) error {
	w := r.MemoryWrites
	if w == nil || w.Lost() == 0 {
		return nil
	}
	first := ""
	if len(w.Failed) > 0 {
		first = "; first: " + w.Failed[0].Error
	}
	return fmt.Errorf("memory: %d of %d Megram(s) GGS sent to %s did not reach the store%s (the trace's memory_lost event lists them)",
		w.Lost(), w.Sent, dir, first)
}

// Summary is how a run ended, as one JSON object (spine run --json's last line).
type Summary struct {
	Type     string                    `json:"type"`
	Run      trace.Halt                `json:"run"`
	Trace    string                    `json:"trace"`
	Final    *contract.FinalResult     `json:"final"`
	Failure  *contract.GracefulFailure `json:"graceful_failure,omitempty"`
	Error    string                    `json:"error,omitempty"`
	Calls    int                       `json:"model_calls"`
	Usage    contract.ModelUsage       `json:"usage"`
	Canceled bool                      `json:"canceled,omitempty"`
}

// Summarize is the Summary of a task's result, its trace at path, the pipeline that ran
// it (its model calls and their usage) and the run's error.
func Summarize(res ggsrun.TaskResult, path string, p *roles.Pipeline, runErr error) Summary {
	usage, calls := p.Usage()
	s := Summary{Type: "RunSummary", Run: res.Result, Trace: path, Final: res.Final, Failure: res.Failure,
		Calls: calls, Usage: usage, Canceled: Canceled(runErr)}
	if runErr != nil {
		s.Error = runErr.Error()
	}
	return s
}
