package contract

import "encoding/json"

// Message type names as they appear in an Envelope's "type".
const (
	TypeTaskSpec         = "TaskSpec"
	TypeSubTask          = "SubTask"
	TypeDispatchManifest = "DispatchManifest"
	TypeExecutionResult  = "ExecutionResult"
	TypeCorrectionSignal = "CorrectionSignal"
	TypeSubTaskOutcome   = "SubTaskOutcome"
	TypeReplanRequest    = "ReplanRequest"
	TypeOutcomeSummary   = "OutcomeSummary"
	TypePlanDirective    = "PlanDirective"
	TypeFinalResult      = "FinalResult"
	TypeMegram           = "Megram"
	TypeMemoryQuery      = "MemoryQuery"
	TypeMemoryAnswer     = "MemoryAnswer"
	TypeAuditReport      = "AuditReport"
)

// Envelope is one bus message in JSONL form: {"type": ..., "payload": {...}}.
type Envelope struct {
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}
