package audit

import (
	"fmt"
	"slices"
	"strings"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// Roles and endpoints as messages name them.
const (
	roleAuditor  = "R6"
	roleOperator = "Operator"
)

// route is who may send a message type, and to whom.
type route struct {
	from []string
	to   []string
}

// routes is the bus contract: for each message type, its senders and receivers
// (role definitions v0.8: R4b reports to R7, never to R2; R7 is the sole emitter of
// FinalResult and the sole writer to memory; R5 serves reads to R2 alone, its Potentials
// and SOPRecords carried in one MemoryAnswer per MemoryQuery; only roles with a model call
// one).
var routes = map[string]route{
	contract.TypeTaskSpec:         {from: []string{"R1"}, to: []string{"R2"}},
	contract.TypeSubTask:          {from: []string{"R2"}, to: []string{"R3"}},
	contract.TypeDispatchManifest: {from: []string{"R2"}, to: []string{"R4b"}},
	contract.TypeExecutionResult:  {from: []string{"R3"}, to: []string{"R4a"}},
	contract.TypeCorrectionSignal: {from: []string{"R4a"}, to: []string{"R3"}},
	contract.TypeSubTaskOutcome:   {from: []string{"R4a"}, to: []string{"R4b"}},
	contract.TypeReplanRequest:    {from: []string{"R4b"}, to: []string{"R7"}},
	contract.TypeOutcomeSummary:   {from: []string{"R4b"}, to: []string{"R7"}},
	contract.TypePlanDirective:    {from: []string{"R7"}, to: []string{"R2"}},
	contract.TypeFinalResult:      {from: []string{"R7"}, to: []string{"User"}},
	contract.TypeMegram:           {from: []string{"R7"}, to: []string{"R5"}},
	contract.TypeMemoryQuery:      {from: []string{"R2"}, to: []string{"R5"}},
	contract.TypeMemoryAnswer:     {from: []string{"R5"}, to: []string{"R2"}},
	contract.TypeAuditReport:      {from: []string{roleAuditor}, to: []string{roleOperator}},
	bus.TypeModelCall:             {from: []string{"R1", "R2", "R3", "R4a", "R4b", "R5"}, to: []string{bus.ToModel}},
}

// what names a message type in a finding: "a Megram (a memory write)", "an
// OutcomeSummary", `a message of type "X"`.
func what(typ string) string {
	switch typ {
	case contract.TypeMegram:
		return "a Megram (a memory write)"
	case bus.TypeModelCall:
		return "a model call"
	}
	if _, known := routes[typ]; !known {
		return fmt.Sprintf("a message of type %q", typ)
	}
	if strings.ContainsAny(typ[:1], "AEIOU") {
		return "an " + typ
	}
	return "a " + typ
}

// checkRoute reports a message its sender's contract does not allow.
func (a *Auditor) checkRoute(m *trace.Message, taskID string) {
	violate := func(format string, args ...any) {
		a.raise(KindBoundaryViolation, taskID, fmt.Sprintf(format, args...), m.Seq)
	}
	if m.To == roleAuditor {
		violate("%s sent %s to the Auditor; R6 takes no messages from any role, only the operator configures it", m.From, what(m.Type))
		return
	}
	r, known := routes[m.Type]
	if !known {
		violate("%s sent %s to %s; no role contract defines that type", m.From, what(m.Type), m.To)
		return
	}
	if !slices.Contains(r.from, m.From) {
		if m.From == roleAuditor {
			violate("R6 sent %s to %s; the Auditor sends nothing but its reports to the operator", what(m.Type), m.To)
			return
		}
		violate("%s sent %s; only %s may send it", m.From, what(m.Type), strings.Join(r.from, ", "))
		return
	}
	if !slices.Contains(r.to, m.To) {
		violate("%s sent %s to %s; it goes to %s", m.From, what(m.Type), m.To, strings.Join(r.to, ", "))
	}
}
