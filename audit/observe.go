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
	thrash     []directiveRec // current run of break_symmetry with D not decreasing
	stall      []directiveRec // current run with L not decreasing
	thrashDone bool           // the current thrash run is reported
	stallDone  bool           // the current stall run is reported

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
	bad := func(err error) (string, bool) {
		a.raise(KindMalformedMessage, m.TaskID, fmt.Sprintf("%s from %s: %v", m.Type, m.From, err), m.Seq)
		return m.TaskID, false
	}
	switch m.Type {
	case contract.TypeTaskSpec:
		var p taskSpecMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.TaskID)
		if id != "" {
			a.task(id).life.began(m.Seq)
		}
		return id, true
	case contract.TypeSubTask:
		var p subTaskMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.ParentTaskID)
		a.claim(p.SubTaskID, id, m.Seq)
		a.task(id).plan(m.Seq, p)
		return id, true
	case contract.TypeDispatchManifest:
		var p manifestMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.TaskID)
		a.onManifest(a.task(id), m.Seq, p.SubTaskIDs)
		return id, true
	case contract.TypeCorrectionSignal:
		var p correctionMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := m.TaskID
		if id == "" {
			id = a.lastTask // a CorrectionSignal names its subtask only
		}
		a.onCorrection(a.task(id), m.Seq, p.SubTaskID)
		return id, true
	case contract.TypeSubTaskOutcome:
		var p outcomeMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.ParentTaskID)
		a.onOutcome(a.task(id), m.Seq, p)
		return id, true
	case contract.TypeReplanRequest, contract.TypeOutcomeSummary:
		var p reportMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.TaskID)
		a.onReport(a.task(id), m.Seq, m.Type, p)
		return id, true
	case contract.TypePlanDirective:
		var p directiveMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.TaskID)
		a.onDirective(a.task(id), m.Seq, p)
		return id, true
	case contract.TypeFinalResult:
		var p finalMsg
		if err := decodeObject(m.Payload, &p); err != nil {
			return bad(err)
		}
		id := a.taskOf(m, p.TaskID)
		a.onFinal(a.task(id), m.Seq, p)
		a.task(id).life.final = true
		return id, true
	case contract.TypeMemoryQuery, contract.TypeMemoryAnswer:
		var err error
		if m.Type == contract.TypeMemoryQuery {
			err = decodeObject(m.Payload, &memoryQueryMsg{})
		} else {
			err = decodeObject(m.Payload, &memoryAnswerMsg{})
		}
		if err != nil {
			return bad(err)
		}
		a.onMemoryRead(a.task(m.TaskID), m)
		return m.TaskID, true
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
