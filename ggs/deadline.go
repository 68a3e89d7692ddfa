package ggs

// TimeBudgeter is a Plant that knows a task's own time budget: the time from the task's
// start to the deadline its TaskSpec states. Gate asks it before measuring each round,
// and the smaller of it and the time_budget_ms param is the budget Ω divides by.
type TimeBudgeter interface {
	// TimeBudgetMS is the task's own budget in milliseconds; ok is false when the task
	// states no deadline.
	TimeBudgetMS() (ms float64, ok bool)
}

// BoundTimeBudget bounds taskID's time budget to ms for the rounds that follow, when
// ms is smaller than time_budget_ms: a task's deadline wins over the rule set's budget,
// and time_budget_ms over a deadline further away. A deadline already passed leaves a
// budget of 1 ms, so Ω's time share is spent at once.
func (s *Solver) BoundTimeBudget(taskID string, ms float64) {
	s.tasks.get(taskID).budgetMS = max(ms, 1)
}

// paramsFor is the params of a task's rounds: the rule set's, with the task's own time
// budget when it is the smaller.
func (st *taskState) paramsFor(p Params) Params {
	if st.budgetMS > 0 && st.budgetMS < p.TimeBudgetMS {
		p.TimeBudgetMS = st.budgetMS
	}
	return p
}
