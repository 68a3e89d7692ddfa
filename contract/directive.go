package contract

// Macro-states of the Goal Gradient Solver. The first four are action states carried by a
// PlanDirective; the last three are terminal and carried by a FinalResult. DirectiveInit
// is the prev_directive of a task's first round.
const (
	DirectiveInit           = "init"
	DirectiveRefine         = "refine"
	DirectiveChangePath     = "change_path"
	DirectiveChangeApproach = "change_approach"
	DirectiveBreakSymmetry  = "break_symmetry"
	DirectiveAccept         = "accept"
	DirectiveSuccess        = "success"
	DirectiveAbandon        = "abandon"
	// DirectiveRetry runs a round again after a fault of the machinery cut it short: the
	// same plan, nothing new blocked. It is not a replan and not one of the seed's six
	// macro-states; the fault rules of rules/ggs.yaml choose it.
	DirectiveRetry = "retry"
)

// IsTerminal reports whether a directive ends the task.
func IsTerminal(directive string) bool {
	switch directive {
	case DirectiveAccept, DirectiveSuccess, DirectiveAbandon:
		return true
	}
	return false
}

// Loss is the decomposed loss of one GGS round.
type Loss struct {
	D     float64 `json:"D"`
	P     float64 `json:"P"`
	Omega float64 `json:"Omega"`
	L     float64 `json:"L"`
}

// PlanDirective is GGS's instruction to R2 on an action state.
type PlanDirective struct {
	TaskID          string   `json:"task_id"`
	Loss            Loss     `json:"loss"`
	PrevDirective   string   `json:"prev_directive"`
	Directive       string   `json:"directive"`
	BlockedTools    []string `json:"blocked_tools"`
	BlockedTargets  []string `json:"blocked_targets"`
	FailedCriterion string   `json:"failed_criterion"`
	FailureClass    string   `json:"failure_class"`
	BudgetPressure  float64  `json:"budget_pressure"`
	GradL           float64  `json:"grad_l"`
	Rationale       string   `json:"rationale"`
}

// FinalResult closes a task. GGS is its only emitter.
type FinalResult struct {
	TaskID        string  `json:"task_id"`
	Summary       string  `json:"summary"`
	Output        any     `json:"output"`
	Loss          Loss    `json:"loss"`
	GradL         float64 `json:"grad_l"`
	Replans       int     `json:"replans"`
	PrevDirective string  `json:"prev_directive"`
	Directive     string  `json:"directive"`
	// Reason names why a task was abandoned when the cause was a fault of the machinery
	// rather than the task's own course: the fault's kind (model_unavailable,
	// contract_broken, planner_cornered, response_too_large, key_refused, or cancelled, iteration_bound,
	// effector_error when the run itself was stopped). Empty otherwise.
	Reason string `json:"reason,omitempty"`
	// Failure is R2's graceful failure on an abandoned task: what was done, what failed
	// and why, and the next moves. Absent when the task was not abandoned or no planner
	// took part (the GGS filter).
	Failure *GracefulFailure `json:"graceful_failure,omitempty"`
}
