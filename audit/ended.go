package audit

import (
	"fmt"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/spine/trace"
)

// taskLife is how far a task got: where it began, its latest message, and whether it
// was decided.
type taskLife struct {
	specSeq  int64  // the first TaskSpec, 0 if none was seen
	final    bool   // a FinalResult arrived
	lastSeq  int64  // the task's latest message
	lastWhat string // what that message was: "a ReplanRequest from R4b"
}

func (l *taskLife) began(seq int64) {
	if l.specSeq == 0 {
		l.specSeq = seq
	}
}

func (l *taskLife) saw(m *trace.Message) {
	l.lastSeq, l.lastWhat = m.Seq, bus.Article(m.Type)+" from "+m.From
}

// checkEnded reports, at the end of the stream, a task that began with a TaskSpec and
// ended without a FinalResult: whatever stopped it, nothing decided it. A stream with no
// TaskSpec (a GGS stream, a cut of a longer run) proves no beginning and is not judged.
func (a *Auditor) checkEnded(t *task) {
	l := t.life
	if l.specSeq == 0 || l.final {
		return
	}
	a.raise(KindNoFinalResult, t.id, fmt.Sprintf("task %q began with a TaskSpec (seq %d) and ended without a FinalResult; its last message is %s (seq %d)",
		t.id, l.specSeq, l.lastWhat, l.lastSeq), l.specSeq, l.lastSeq)
}
