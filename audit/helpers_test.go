package audit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// stream builds a message stream with seqs 1, 2, 3, …
type stream struct{ msgs []trace.Message }

func (s *stream) send(from, to, typ, task string, payload any) int64 {
	raw, err := json.Marshal(payload)
	if err != nil {
		panic(err)
	}
	seq := int64(len(s.msgs) + 1)
	s.msgs = append(s.msgs, trace.Message{Seq: seq, From: from, To: to, Type: typ, TaskID: task, Payload: raw})
	return seq
}

// The messages of the loop, from their usual senders to their usual receivers.

func (s *stream) manifest(task string, ids ...string) int64 {
	return s.send("R2", "R4b", contract.TypeDispatchManifest, task, contract.DispatchManifest{TaskID: task, SubTaskIDs: ids})
}

func (s *stream) subtask(task, id string) int64 {
	return s.send("R2", "R3", contract.TypeSubTask, task, contract.SubTask{SubTaskID: id, ParentTaskID: task})
}

func (s *stream) correction(task, id string) int64 {
	return s.send("R4a", "R3", contract.TypeCorrectionSignal, task, contract.CorrectionSignal{SubTaskID: id})
}

func outcome(task, id, status string, attempts int) contract.SubTaskOutcome {
	o := contract.SubTaskOutcome{SubTaskID: id, ParentTaskID: task, Status: status}
	for i := 1; i <= attempts; i++ {
		o.GapTrajectory = append(o.GapTrajectory, contract.GapAttempt{Attempt: i})
	}
	return o
}

func (s *stream) outcome(task, id, status string) int64 {
	return s.send("R4a", "R4b", contract.TypeSubTaskOutcome, task, outcome(task, id, status, 1))
}

func (s *stream) replan(task string, elapsed int64, outcomes ...contract.SubTaskOutcome) int64 {
	rr := contract.ReplanRequest{TaskID: task, ElapsedMS: elapsed, Outcomes: outcomes}
	for _, o := range outcomes {
		if o.Status == contract.OutcomeFailed {
			rr.FailedSubTasks = append(rr.FailedSubTasks, o.SubTaskID)
		}
	}
	return s.send("R4b", "R7", contract.TypeReplanRequest, task, rr)
}

func (s *stream) summary(task string, elapsed int64, outcomes ...contract.SubTaskOutcome) int64 {
	return s.send("R4b", "R7", contract.TypeOutcomeSummary, task, contract.OutcomeSummary{TaskID: task, ElapsedMS: elapsed, Outcomes: outcomes})
}

func (s *stream) directive(task, directive string, d, l float64) int64 {
	return s.send("R7", "R2", contract.TypePlanDirective, task, contract.PlanDirective{TaskID: task, Directive: directive, Loss: contract.Loss{D: d, L: l}})
}

// directiveAt is a PlanDirective issued at resource cost omega.
func (s *stream) directiveAt(task, directive string, d, l, omega float64) int64 {
	return s.send("R7", "R2", contract.TypePlanDirective, task, contract.PlanDirective{TaskID: task, Directive: directive, Loss: contract.Loss{D: d, L: l, Omega: omega}})
}

func (s *stream) final(task string, replans int) int64 {
	return s.send("R7", "User", contract.TypeFinalResult, task, contract.FinalResult{TaskID: task, Directive: contract.DirectiveAbandon, Replans: replans})
}

func (s *stream) modelCall(role, task string) int64 {
	return s.send(role, bus.ToModel, bus.TypeModelCall, task, map[string]any{"name": "llm:" + role})
}

// want is one expected finding: its kind, its evidence, and words its message contains.
type want struct {
	kind     string
	evidence []int64
	text     string
}

func (w want) String() string { return fmt.Sprintf("%s %v %q", w.kind, w.evidence, w.text) }

// audit runs a fresh Auditor with cfg over the stream and ends it.
func audit(t *testing.T, cfg Config, s *stream) []contract.AuditReport {
	t.Helper()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.msgs {
		a.Observe(m)
	}
	a.End()
	return a.Findings()
}

func checkFindings(t *testing.T, got []contract.AuditReport, wants []want) {
	t.Helper()
	ok := len(got) == len(wants)
	for i := 0; ok && i < len(got); i++ {
		ok = got[i].Kind == wants[i].kind && slices.Equal(got[i].Evidence, wants[i].evidence) &&
			strings.Contains(got[i].Message, wants[i].text) && got[i].Severity == Severity(got[i].Kind)
	}
	if !ok {
		var b strings.Builder
		for _, f := range got {
			fmt.Fprintf(&b, "\n  %s %s %v %q", f.Severity, f.Kind, f.Evidence, f.Message)
		}
		t.Errorf("findings:%s\nwant %v", b.String(), wants)
	}
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
