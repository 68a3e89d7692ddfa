package audit

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
)

// The Auditor decodes only the fields it checks, with the role contracts' JSON names
// (contract package); anything else in a payload is ignored, so a role may carry more
// than the Auditor reads without being reported.

type taskSpecMsg struct {
	TaskID string `json:"task_id"`
}

type subTaskMsg struct {
	SubTaskID    string   `json:"subtask_id"`
	ParentTaskID string   `json:"parent_task_id"`
	Tools        []string `json:"tools"` // the plan's tools for it, when the planner names them
}

type manifestMsg struct {
	TaskID     string   `json:"task_id"`
	SubTaskIDs []string `json:"subtask_ids"`
}

type correctionMsg struct {
	SubTaskID string `json:"subtask_id"`
}

type outcomeMsg struct {
	SubTaskID        string            `json:"subtask_id"`
	ParentTaskID     string            `json:"parent_task_id"`
	Status           string            `json:"status"`
	GapTrajectory    []json.RawMessage `json:"gap_trajectory"`
	CriteriaVerdicts []verdictMsg      `json:"criteria_verdicts"`
	ToolCalls        []string          `json:"tool_calls"`
}

type verdictMsg struct {
	Criterion string `json:"criterion"`
	Verdict   string `json:"verdict"`
}

// reportMsg is R4b's ReplanRequest or OutcomeSummary.
type reportMsg struct {
	TaskID          string       `json:"task_id"`
	FailedSubTasks  []string     `json:"failed_subtasks"`
	CorrectionCount int          `json:"correction_count"`
	ElapsedMS       int64        `json:"elapsed_ms"`
	Outcomes        []outcomeMsg `json:"outcomes"`
}

type directiveMsg struct {
	TaskID    string `json:"task_id"`
	Directive string `json:"directive"`
	Loss      struct {
		D     float64 `json:"D"`
		L     float64 `json:"L"`
		Omega float64 `json:"Omega"`
	} `json:"loss"`
}

type finalMsg struct {
	TaskID  string `json:"task_id"`
	Replans int    `json:"replans"`
}

// decodeObject decodes a payload that must be a JSON object.
func decodeObject(raw json.RawMessage, v any) error {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errors.New("the payload is not a JSON object")
	}
	if err := json.Unmarshal(trimmed, v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return fmt.Errorf("payload field %s is a JSON %s, want %s", te.Field, te.Value, jsonKind(te.Type))
		}
		return fmt.Errorf("payload: %v", err)
	}
	return nil
}

// jsonKind names the JSON value a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int64, reflect.Float64:
		return "a number"
	case reflect.Slice:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	}
	return t.String()
}

func (p outcomeMsg) taskID() string   { return p.ParentTaskID }
func (p reportMsg) taskID() string    { return p.TaskID }
func (p directiveMsg) taskID() string { return p.TaskID }
func (p finalMsg) taskID() string     { return p.TaskID }
func (p manifestMsg) taskID() string  { return p.TaskID }
