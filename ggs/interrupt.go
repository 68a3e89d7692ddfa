package ggs

import (
	"context"
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
)

// FailureReporter is a Plant whose planner writes the graceful failure of an abandoned
// task (seed 001, R2): Finish asks it before delivering the FinalResult, so the
// FinalResult carries it on the bus and in the trace.
type FailureReporter interface {
	GracefulFailure(final *contract.FinalResult) *contract.GracefulFailure
}

var _ engine.Interrupter = (*Loop)(nil)

// Interrupt turns a run stopped from outside the rules — cancelled, at the iteration
// bound, an effector call failed — into a round whose fault ends the task (signals.fault
// = FaultEnds), so that a rule of rules/ggs.yaml abandons it with the interruption as
// the FinalResult's reason.
func (l *Loop) Interrupt(ctx context.Context, req engine.InterruptRequest) (engine.Signals, error) {
	if !contract.IsInterruption(req.Reason) {
		return engine.Signals{}, fmt.Errorf("ggs: interrupt reason %q is not one of %s, %s, %s",
			req.Reason, contract.FaultCancelled, contract.FaultIterationBound, contract.FaultEffectorError)
	}
	if err := l.syncParams(); err != nil {
		return engine.Signals{}, err
	}
	f := contract.Fault{Role: contract.FaultRoleSpine, Kind: req.Reason, Detail: req.Detail}
	sig := l.solver.ObserveInterrupt(l.task.TaskID, l.task.Intent, f, l.elapsedMS)
	return engine.Signals{Changes: []engine.Change{{Op: engine.ChangePut, Kind: SignalsKind, Fields: sig.fields()}}}, nil
}

// ObserveInterrupt holds the round that an interruption ends. A round measured and not
// yet decided (the iteration bound falls right after one) keeps its measurement and
// gains the fault; otherwise the interruption is a round of its own that only the fault
// fills, as a fault of the machinery's is: the last judged D and P, Ω at elapsedMS.
// Either way the fault ends the task (FaultEnds): an interruption cannot be retried.
func (s *Solver) ObserveInterrupt(taskID, intent string, f contract.Fault, elapsedMS int64) Signals {
	st := s.tasks.get(taskID)
	if p := st.pending; p != nil {
		p.in.fault = &f
		p.sig.Fault, p.sig.FaultFatal = FaultEnds, true
		p.sig.Interrupted, p.sig.InterruptDetail = f.Kind, f.Detail
		return p.sig
	}
	s.observe(message{taskID: taskID, intent: intent, elapsedMS: elapsedMS, fault: &f, faultOnly: true})
	p := st.pending
	p.sig.Interrupted, p.sig.InterruptDetail = f.Kind, f.Detail
	return p.sig
}

// interruptedSummary says why an interrupted run stopped, for the FinalResult.
func interruptedSummary(kind, detail string) string {
	what := map[string]string{
		contract.FaultCancelled:      "the run was cancelled",
		contract.FaultIterationBound: "the run reached its iteration bound",
		contract.FaultEffectorError:  "an effector call failed",
	}[kind]
	if detail != "" {
		what += " (" + clipRunes(detail, 300) + ")"
	}
	return "Stopped: " + what + " before the task was finished; the task itself was not judged failed."
}

func clipRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
