package contract

// Criterion modes. A verdict without a mode counts as verifiable.
const (
	ModeVerifiable = "verifiable"
	ModePlausible  = "plausible"
)

// Verdicts.
const (
	VerdictPass = "pass"
	VerdictFail = "fail"
)

// Failure classes. Mixed appears only in a PlanDirective, when a round's failures are
// split evenly between the two classes.
const (
	FailureLogical       = "logical"
	FailureEnvironmental = "environmental"
	FailureMixed         = "mixed"
)

// Subtask outcome statuses.
const (
	OutcomeMatched = "matched"
	OutcomeFailed  = "failed"
)

// CorrectionSignal is R4a's instruction to R3 for the next attempt of a subtask.
type CorrectionSignal struct {
	SubTaskID       string `json:"subtask_id"`
	AttemptNumber   int    `json:"attempt_number"`
	FailedCriterion string `json:"failed_criterion"`
	FailureClass    string `json:"failure_class"`
	WhatWasWrong    string `json:"what_was_wrong"`
	WhatToDo        string `json:"what_to_do"`
}

// CriterionVerdict is R4a's (or R4b's) judgement of one criterion.
type CriterionVerdict struct {
	Criterion    string  `json:"criterion"`
	Mode         string  `json:"mode,omitempty"`
	Verdict      string  `json:"verdict"`
	FailureClass *string `json:"failure_class"`
	Evidence     string  `json:"evidence"`
}

// Failed reports whether the verdict is a failure.
func (v CriterionVerdict) Failed() bool { return v.Verdict == VerdictFail }

// Class returns the failure class, or "" when none was given.
func (v CriterionVerdict) Class() string {
	if v.FailureClass == nil {
		return ""
	}
	return *v.FailureClass
}

// GapAttempt records which criteria failed on one attempt of the fast loop.
type GapAttempt struct {
	Attempt        int               `json:"attempt"`
	FailedCriteria []FailedCriterion `json:"failed_criteria"`
}

// FailedCriterion names one criterion that failed on an attempt.
type FailedCriterion struct {
	Criterion    string `json:"criterion"`
	FailureClass string `json:"failure_class"`
}

// SubTaskOutcome is R4a's final word on a subtask. ToolCalls carries R3's tool_calls
// entries along so that GGS can name the tools and targets to block.
type SubTaskOutcome struct {
	SubTaskID        string             `json:"subtask_id"`
	ParentTaskID     string             `json:"parent_task_id"`
	Status           string             `json:"status"`
	Output           any                `json:"output"`
	FailureReason    *string            `json:"failure_reason"`
	CriteriaVerdicts []CriterionVerdict `json:"criteria_verdicts"`
	GapTrajectory    []GapAttempt       `json:"gap_trajectory"`
	ToolCalls        []string           `json:"tool_calls,omitempty"`
	// Fault is set when the subtask failed because the machinery did (R3's or R4a's model
	// endpoint, a reply breaking its contract), not because of the task: no criterion was
	// judged, and GGS keeps it out of D and P.
	Fault *Fault `json:"fault,omitempty"`
}

// ReplanRequest is R4b's report to GGS when the fan-in gate or the merged-result check
// fails. TaskCriteriaVerdicts holds R4b's verdicts on the merged result against the
// manifest's task_criteria, when it got that far; they count in D.
type ReplanRequest struct {
	TaskID               string             `json:"task_id"`
	Intent               string             `json:"intent,omitempty"`
	GapSummary           string             `json:"gap_summary"`
	FailedSubTasks       []string           `json:"failed_subtasks"`
	CorrectionCount      int                `json:"correction_count"`
	ElapsedMS            int64              `json:"elapsed_ms"`
	Outcomes             []SubTaskOutcome   `json:"outcomes"`
	TaskCriteriaVerdicts []CriterionVerdict `json:"task_criteria_verdicts,omitempty"`
	Recommendation       string             `json:"recommendation"` // replan | retry | abandon
	// Fault is set when a role could not do its job at all (R1, R2 or R4b's model, or the
	// planner cornered by the MUST NOT set) and the round ended without a result to judge.
	Fault *Fault `json:"fault,omitempty"`
}

// OutcomeSummary is R4b's report to GGS when every subtask matched and the merged result
// satisfied the task criteria.
type OutcomeSummary struct {
	TaskID    string           `json:"task_id"`
	Intent    string           `json:"intent,omitempty"`
	Summary   string           `json:"summary"`
	Output    any              `json:"output"`
	ElapsedMS int64            `json:"elapsed_ms"`
	Outcomes  []SubTaskOutcome `json:"outcomes,omitempty"`
}
