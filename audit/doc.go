// Package audit is the Auditor (R6): a lateral observer of the message bus that reports
// systematic failures to the human operator as contract.AuditReport findings.
//
// The Auditor reads copies of every inter-role message (trace.Message), in seq order, and
// keeps what it needs to spot, per task: GGS thrashing (consecutive break_symmetry
// directives with D not decreasing), replanning without improvement (a run of
// PlanDirectives whose L never decreases), excessive retries (R4a corrections beyond the
// retry budget), duplicate subtask IDs, fan-in incompleteness (a DispatchManifest whose
// outcomes do not all arrive), boundary violations (a role sending what its contract does
// not allow, R4b calling its model after a failed subtask), budget overruns (time or
// replans), verdicts without evidence (a criterion judged pass while the subtask's
// tool_calls show no successful action) and tasks that began with a TaskSpec and ended
// without a FinalResult. Every finding names the seq numbers of the messages that prove
// it, and the findings of a message stream do not depend on timing: they are a function
// of the messages and the Config, ordered by seq then kind.
//
// Its principal is the operator. A Config is fixed when the Auditor is made (New, from
// the operator's flags or settings) and nothing changes it afterwards; no method takes a
// message's word for anything but evidence, and a message addressed to the Auditor is
// itself reported as a boundary violation.
//
// The package must not send messages, answer any role, write to memory or touch
// operational data; it imports the bus only to read it, spine/trace only to read traces
// offline (AuditTrace, AuditFile), and no effector: it reads tool_calls entries as
// contract.ReadToolCall reads them.
package audit
