package runlog

import (
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// Payload decodes a message's payload by its type into the contract's struct (a pointer
// to it), or returns the payload as it is (json.RawMessage) when the type is not one of
// the pipeline's or the payload does not decode as it.
func Payload(m trace.Message) any {
	var v any
	switch m.Type {
	case contract.TypeTaskSpec:
		v = new(contract.TaskSpec)
	case contract.TypeSubTask:
		v = new(contract.Assignment)
	case contract.TypeDispatchManifest:
		v = new(contract.DispatchManifest)
	case contract.TypeExecutionResult:
		v = new(contract.ExecutionResult)
	case contract.TypeCorrectionSignal:
		v = new(contract.CorrectionSignal)
	case contract.TypeSubTaskOutcome:
		v = new(contract.SubTaskOutcome)
	case contract.TypeReplanRequest:
		v = new(contract.ReplanRequest)
	case contract.TypeOutcomeSummary:
		v = new(contract.OutcomeSummary)
	case contract.TypePlanDirective:
		v = new(contract.PlanDirective)
	case contract.TypeFinalResult:
		v = new(contract.FinalResult)
	case contract.TypeMegram:
		v = new(contract.Megram)
	case contract.TypeMemoryQuery:
		v = new(contract.MemoryQuery)
	case contract.TypeMemoryAnswer:
		v = new(contract.MemoryAnswer)
	default:
		return m.Payload
	}
	if bus.Decode(m, v) != nil {
		return m.Payload
	}
	return v
}
