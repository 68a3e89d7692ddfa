package main

import (
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/spine/trace"
)

// typedPayload decodes a posted message's payload by its type for display, or returns
// the payload as it is when the type is not one the displays know or does not decode.
func typedPayload(m trace.Message) any {
	var v any
	switch m.Type {
	case contract.TypeTaskSpec:
		v = new(contract.TaskSpec)
	case contract.TypeSubTask:
		v = new(roles.Assignment)
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
