package contract

// TaskSpec is R1's faithful carriage of the user's request into the system.
type TaskSpec struct {
	TaskID      string      `json:"task_id"`
	Intent      string      `json:"intent"`
	Constraints Constraints `json:"constraints"`
	RawInput    string      `json:"raw_input"`
}

// Constraints narrows a TaskSpec. Both fields are optional (JSON null when absent).
type Constraints struct {
	Scope    *string `json:"scope"`
	Deadline *string `json:"deadline"`
}

// SubTask is one unit of work that R2 dispatches to an executor. SubTaskID is assigned by
// the runtime, never taken from a model.
type SubTask struct {
	SubTaskID       string   `json:"subtask_id"`
	ParentTaskID    string   `json:"parent_task_id"`
	Intent          string   `json:"intent"`
	SuccessCriteria Criteria `json:"success_criteria"` // each with the mode R2 stated
	Context         string   `json:"context"`
	Deadline        *string  `json:"deadline"`
	Sequence        int      `json:"sequence"`
}

// Assignment is a SubTask as dispatched to R3, the payload of a SubTask message: the
// contract's fields, with the ID the runtime assigned, and the tools and targets the
// plan declared for it.
type Assignment struct {
	SubTask
	Tools   []string `json:"tools"`
	Targets []string `json:"targets"`
}

// DispatchManifest tells R4b which subtasks belong to a task and what the combined output
// must satisfy.
type DispatchManifest struct {
	TaskID       string    `json:"task_id"`
	SubTaskIDs   []string  `json:"subtask_ids"`
	TaskSpec     *TaskSpec `json:"task_spec"`
	DispatchedAt string    `json:"dispatched_at"`
	TaskCriteria Criteria  `json:"task_criteria"`
}

// ExecutionResult is R3's report for one subtask attempt. Each ToolCalls entry has the
// form "<tool>:<target> → <evidence>".
type ExecutionResult struct {
	SubTaskID string   `json:"subtask_id"`
	Status    string   `json:"status"` // completed | failed
	Output    any      `json:"output"`
	ToolCalls []string `json:"tool_calls"`
}

// Execution statuses.
const (
	ExecCompleted = "completed"
	ExecFailed    = "failed"
)
