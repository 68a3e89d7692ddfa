package audit

import (
	"fmt"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// task is what the Auditor remembers about one task.
type task struct {
	id string

	// PlanDirectives.
	directives []int64 // seqs of every PlanDirective
	prev       *directiveRec
	thrash     streak // break_symmetry after break_symmetry with D not decreasing
	stall      streak // L not decreasing

	// Fan-in.
	manifests []*manifest // open manifests, oldest first

	// The current round, for R4b's fan-in gate.
	failedSeq     int64   // first failed SubTaskOutcome of the round, 0 if none
	failedSubtask string  // its subtask_id
	r4bCalls      []int64 // R4b model calls of the round not yet reported

	corrections map[string][]int64 // CorrectionSignal seqs per subtask

	memoryQueries []int64 // R2's MemoryQueries R5 has not answered yet

	// Evidence and the task's end.
	plans map[string]plannedSubTask // subtask_id → the SubTask that dispatched it
	life  taskLife
}

type directiveRec struct {
	seq       int64
	directive string
	d, l      float64
}

func (a *Auditor) task(id string) *task {
	t := a.tasks[id]
	if t == nil {
		t = &task{id: id, corrections: map[string][]int64{}, plans: map[string]plannedSubTask{}}
		a.tasks[id] = t
	}
	return t
}

// taskOf reconciles the envelope's task_id with the payload's: they must agree when both
// are given.
func (a *Auditor) taskOf(m *trace.Message, payloadTask string) string {
	switch {
	case m.TaskID == "":
		return payloadTask
	case payloadTask != "" && payloadTask != m.TaskID:
		a.raise(KindMalformedMessage, m.TaskID, fmt.Sprintf("%s from %s is addressed to task %q but its payload names task %q", m.Type, m.From, m.TaskID, payloadTask), m.Seq)
	}
	return m.TaskID
}

// observe checks the route, decodes the payload the type announces, and hands it to the
// detectors that read that type.
func (a *Auditor) observe(m *trace.Message) {
	if m.From == "" || m.To == "" || m.Type == "" {
		a.raise(KindMalformedMessage, m.TaskID, fmt.Sprintf("message %q from %q to %q does not name its sender, receiver and type", m.Type, m.From, m.To), m.Seq)
		return
	}
	taskID, ok := a.decode(m)
	if taskID != "" {
		a.lastTask = taskID
		a.task(taskID).life.saw(m)
	}
	a.checkRoute(m, taskID)
	_ = ok // a payload that cannot be read is already reported; its route still counts
}

// decode dispatches on the type. It returns the message's task and whether the payload
// could be read.
func (a *Auditor) decode(m *trace.Message) (string, bool) {
	switch m.Type {
	case contract.TypeTaskSpec:
		return withPayload(a, m, func(p taskSpecMsg) string {
			id := a.taskOf(m, p.TaskID)
			if id != "" {
				a.task(id).life.began(m.Seq)
			}
			return id
		})
	case contract.TypeSubTask:
		return withPayload(a, m, func(p subTaskMsg) string {
			id := a.taskOf(m, p.ParentTaskID)
			a.claim(p.SubTaskID, id, m.Seq)
			a.task(id).plan(m.Seq, p)
			return id
		})
	case contract.TypeDispatchManifest:
		return detect(a, m, func(t *task, seq int64, p manifestMsg) { a.onManifest(t, seq, p.SubTaskIDs) })
	case contract.TypeCorrectionSignal:
		return withPayload(a, m, func(p correctionMsg) string {
			id := m.TaskID
			if id == "" {
				id = a.lastTask // a CorrectionSignal names its subtask only
			}
			a.onCorrection(a.task(id), m.Seq, p.SubTaskID)
			return id
		})
	case contract.TypeSubTaskOutcome:
		return detect(a, m, a.onOutcome)
	case contract.TypeReplanRequest, contract.TypeOutcomeSummary:
		return detect(a, m, func(t *task, seq int64, p reportMsg) { a.onReport(t, seq, m.Type, p) })
	case contract.TypePlanDirective:
		return detect(a, m, a.onDirective)
	case contract.TypeFinalResult:
		return detect(a, m, func(t *task, seq int64, p finalMsg) {
			a.onFinal(t, seq, p)
			t.life.final = true
		})
	case contract.TypeMemoryQuery:
		return withPayload(a, m, func(memoryQueryMsg) string { a.onMemoryRead(a.task(m.TaskID), m); return m.TaskID })
	case contract.TypeMemoryAnswer:
		return withPayload(a, m, func(memoryAnswerMsg) string { a.onMemoryRead(a.task(m.TaskID), m); return m.TaskID })
	case bus.TypeModelCall:
		id := m.TaskID
		if id == "" {
			id = a.lastTask // a model call inside a role's work belongs to the task at hand
		}
		if m.From == "R4b" && id != "" {
			a.onR4bModelCall(a.task(id), m.Seq)
		}
		return id, true
	}
	return m.TaskID, true
}

// withPayload decodes m's payload as a P and hands it to use, which returns the message's
// task. A payload that cannot be read is reported as malformed and not used; the message
// then belongs to the envelope's task.
func withPayload[P any](a *Auditor, m *trace.Message, use func(P) string) (string, bool) {
	var p P
	if err := decodeObject(m.Payload, &p); err != nil {
		a.raise(KindMalformedMessage, m.TaskID, fmt.Sprintf("%s from %s: %v", m.Type, m.From, err), m.Seq)
		return m.TaskID, false
	}
	return use(p), true
}

// taskPayload is a payload that names its task.
type taskPayload interface{ taskID() string }

// detect decodes m's payload as a P, reconciles the task it names with the envelope's
// (taskOf) and hands the payload to the detector on.
func detect[P taskPayload](a *Auditor, m *trace.Message, on func(t *task, seq int64, p P)) (string, bool) {
	return withPayload(a, m, func(p P) string {
		id := a.taskOf(m, p.taskID())
		on(a.task(id), m.Seq, p)
		return id
	})
}
