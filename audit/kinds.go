package audit

import "github.com/agentspine/spine/contract"

// Finding kinds.
const (
	KindGGSThrashing                 = "ggs_thrashing"
	KindExcessiveRetries             = "excessive_retries"
	KindReplanningWithoutImprovement = "replanning_without_improvement"
	KindDuplicateSubtaskIDs          = "duplicate_subtask_ids"
	KindFaninIncomplete              = "fanin_incomplete"
	KindBoundaryViolation            = "boundary_violation"
	KindBudgetOverrun                = "budget_overrun"
	// KindMalformedMessage is a message the Auditor cannot read as its type says (a
	// payload of the wrong shape, a task_id that disagrees with its envelope, a seq out
	// of order): what it would prove cannot be checked, so it is reported itself.
	KindMalformedMessage = "malformed_message"
	// KindVerdictWithoutEvidence is a SubTaskOutcome with a criterion judged pass while
	// its tool_calls show no successful action: every call refused or failed, or none
	// made although the subtask's plan named tools.
	KindVerdictWithoutEvidence = "verdict_without_evidence"
	// KindNoFinalResult is a task that began with a TaskSpec and whose stream ended
	// without a FinalResult: the task was abandoned without a decision.
	KindNoFinalResult = "no_final_result"
)

// Kinds lists every finding kind, sorted.
func Kinds() []string {
	return []string{
		KindBoundaryViolation, KindBudgetOverrun, KindDuplicateSubtaskIDs, KindExcessiveRetries,
		KindFaninIncomplete, KindGGSThrashing, KindMalformedMessage, KindNoFinalResult,
		KindReplanningWithoutImprovement, KindVerdictWithoutEvidence,
	}
}

// Severity is the fixed severity of each kind. Errors break an invariant of the role
// contracts; warnings are convergence or budget trouble that the loop may still survive.
// A verdict without evidence is an error: R4a's settle path turns such a pass to a fail
// in code, so one in a trace means that guard did not hold, and the pass it leaves can
// carry the task to an accept that cannot be undone. A task without a FinalResult broke
// the promise that every task ends in a decision.
func Severity(kind string) string {
	switch kind {
	case KindBoundaryViolation, KindDuplicateSubtaskIDs, KindFaninIncomplete, KindMalformedMessage,
		KindNoFinalResult, KindVerdictWithoutEvidence:
		return contract.SeverityError
	}
	return contract.SeverityWarning
}
