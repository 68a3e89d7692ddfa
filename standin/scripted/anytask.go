package scripted

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// AnyTask is a stand-in for a model, not a model: it answers every role of any task by
// fixed rules over the request alone, so that `spine worker --demo` runs whatever task
// text it is given without an endpoint. It understands nothing; it does the same
// survey for every task:
//
//   - R1 restates the task's words as its intent, with no scope and no questions;
//   - R2 plans one subtask: list the work dir's files, read each, and write a report
//     file named in the plan (report.md, report-2.md on a later round or a rejected
//     plan), with criteria the tools' output can decide;
//   - R3 calls list_files, then read_file on every file listed, then write_file with a
//     report of the files and of their lines that mention the task's words, then
//     answers with what the tools returned;
//   - R4a and R4b judge each criterion on the tool_calls entries the runtime built.
//
// Each reply is chosen from the request's content — the role (its model name), the
// role's JSON turn and the conversation so far — never from how many requests came
// before. So a run resumed or replayed from a trace, where the recorded calls are
// served and the stand-in is asked only the rest, gets the reply a whole run gets.
type AnyTask struct{}

// anyTaskPrefix marks the model names AnyTask answers to.
const anyTaskPrefix = "standin-any-task-"

// AnyTaskModelName is the model name role asks for when AnyTask stands in for its model;
// every recorded request names it, so a trace cannot be taken for a model's.
func AnyTaskModelName(role llm.RoleName) string { return anyTaskPrefix + string(role) }

// AnyTaskNote is what the trace header's "standin" field says.
const AnyTaskNote = "scripted.AnyTask: every reply is made by fixed rules from its request; no model is called"

// AnyTaskLLMConfig names AnyTask's models for every role, and no endpoint and no key.
func AnyTaskLLMConfig() llm.Config {
	return standInConfig("none: a stand-in answers (scripted.AnyTask; no model is called)", AnyTaskModelName)
}

var _ llm.ChatModel = AnyTask{}

// Complete answers req as its role's rules say.
func (AnyTask) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	if err := ctx.Err(); err != nil {
		return contract.ModelResponse{}, err
	}
	name, ok := strings.CutPrefix(req.Model, anyTaskPrefix)
	role, known := llm.ParseRoleName(name)
	if !ok || !known {
		return contract.ModelResponse{}, fmt.Errorf("stand-in: model %q is not one of the stand-in's (%s<role>)", req.Model, anyTaskPrefix)
	}
	var (
		content string
		calls   []contract.ModelToolCall
		err     error
	)
	switch role {
	case llm.R1:
		content, err = perceiveAny(req)
	case llm.R2:
		content, err = planAny(req)
	case llm.R3:
		content, calls, err = executeAny(req)
	case llm.R4a:
		content, err = judgeAny(req)
	case llm.R4b:
		content, err = mergeAny(req)
	default:
		err = fmt.Errorf("stand-in: the role %s is not one the stand-in answers", role)
	}
	if err != nil {
		return contract.ModelResponse{}, err
	}
	finish := "stop"
	if len(calls) > 0 {
		finish = "tool_calls"
	}
	return contract.ModelResponse{Model: req.Model, Content: content, ToolCalls: calls, FinishReason: finish, Attempts: 1}, nil
}

// firstUser decodes the request's first user turn, the role's JSON request.
func firstUser(req contract.ModelRequest, v any) error {
	for _, m := range req.Messages {
		if m.Role == llm.RoleUser {
			if err := json.Unmarshal([]byte(m.Content), v); err != nil {
				return fmt.Errorf("stand-in: the request's first user turn is not the role's JSON: %w", err)
			}
			return nil
		}
	}
	return fmt.Errorf("stand-in: the request has no user turn")
}

// assistantTurns counts the replies already in the conversation.
func assistantTurns(req contract.ModelRequest) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == llm.RoleAssistant {
			n++
		}
	}
	return n
}

// perceiveAny is R1: the user's words as the intent.
func perceiveAny(req contract.ModelRequest) (string, error) {
	var in struct {
		RawInput string `json:"raw_input"`
	}
	if err := firstUser(req, &in); err != nil {
		return "", err
	}
	return js(map[string]any{"intent": strings.Join(strings.Fields(in.RawInput), " "),
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}}), nil
}

// The criteria AnyTask's plans write; its validators recognise them by these words.
const (
	critListed = "list_files lists the files of the working directory"
	critRead   = "read_file reads every file the listing shows"
	critReport = "holds a report on the task, written with write_file from the files read"
)

func reportCriterion(report string) string { return report + " " + critReport }

// planAny is R2: one subtask surveying the work dir into a report file. A later round,
// or a plan the validator rejected, names another report file, so no plan repeats one
// that failed.
func planAny(req contract.ModelRequest) (string, error) {
	var in struct {
		Task  contract.TaskSpec `json:"task"`
		Round int               `json:"round"`
	}
	if err := firstUser(req, &in); err != nil {
		return "", err
	}
	intent := in.Task.Intent
	if intent == "" {
		intent = strings.Join(strings.Fields(in.Task.RawInput), " ")
	}
	report := reportName(max(in.Round, 1) - 1 + assistantTurns(req))
	return js(map[string]any{
		"task_criteria": []string{reportCriterion(report)},
		"subtasks": []map[string]any{{
			"intent":           fmt.Sprintf("For the task %q: list the files of the working directory, read each, and write to %s what they hold that bears on the task", intent, report),
			"success_criteria": []string{critListed, critRead, reportCriterion(report)},
			"context":          "The task: " + intent + "\nThe working directory holds a small project. Write the report to " + report + ".",
			"sequence":         1, "tools": []string{"list_files", "read_file", "write_file"},
			"targets": []string{".", report}}}}), nil
}

// reportName is the report file of the n-th plan (from 0).
func reportName(n int) string {
	if n <= 0 {
		return "report.md"
	}
	return fmt.Sprintf("report-%d.md", n+1)
}
