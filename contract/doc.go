// Package contract holds the messages that the roles exchange on the bus, with the JSON
// field names of the role definitions: TaskSpec, SubTask, DispatchManifest,
// ExecutionResult, CorrectionSignal, SubTaskOutcome, ReplanRequest, OutcomeSummary,
// PlanDirective, FinalResult, Megram, SOPRecord, Potentials, MemoryQuery, MemoryAnswer
// and AuditReport.
// It also owns the one-line tool_calls entry those messages carry (FormatToolCall,
// ParseToolCall), which R3 writes and R4a and GGS read.
//
// It owns data shapes and their small invariants (enumerated values, validation). It must
// not perform I/O, and must not import any other package of the project but one that itself
// imports none (internal/strictjson, the one strict JSON decoder): every role, the
// spine's hosts and the memory engine import it, so it stays at the bottom of the graph.
package contract
