package audit

import (
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// memoryQueryMsg and memoryAnswerMsg are the fields of R2's MemoryQuery and R5's
// MemoryAnswer the Auditor reads: an answer's verdicts name what memory told the planner.
type memoryQueryMsg struct {
	Intent string `json:"intent"`
}

type memoryAnswerMsg struct {
	Error string `json:"error"`
}

// onMemoryRead pairs R5's answers with R2's queries: R5 serves reads, so an answer no
// query asked for is memory speaking to the planner on its own, which its contract does
// not allow. Messages off their route are left to checkRoute.
func (a *Auditor) onMemoryRead(t *task, m *trace.Message) {
	switch {
	case m.Type == contract.TypeMemoryQuery && m.From == "R2" && m.To == "R5":
		t.memoryQueries = append(t.memoryQueries, m.Seq)
	case m.Type == contract.TypeMemoryAnswer && m.From == "R5" && m.To == "R2":
		if len(t.memoryQueries) == 0 {
			a.raise(KindBoundaryViolation, t.id, "R5 sent a MemoryAnswer to R2 that no MemoryQuery asked for; R5 serves reads, it does not advise unasked", m.Seq)
			return
		}
		t.memoryQueries = t.memoryQueries[1:]
	}
}
