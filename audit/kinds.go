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
)

// Kinds lists every finding kind, sorted.
func Kinds() []string {
	return []string{
		KindBoundaryViolation, KindBudgetOverrun, KindDuplicateSubtaskIDs, KindExcessiveRetries,
		KindFaninIncomplete, KindGGSThrashing, KindMalformedMessage, KindReplanningWithoutImprovement,
	}
}

// Severity is the fixed severity of each kind. Errors break an invariant of the role
// contracts; warnings are convergence or budget trouble that the loop may still survive.
func Severity(kind string) string {
	switch kind {
	case KindBoundaryViolation, KindDuplicateSubtaskIDs, KindFaninIncomplete, KindMalformedMessage:
		return contract.SeverityError
	}
	return contract.SeverityWarning
}
