package roles

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// The shapes below are what each role's model must answer, decoded strictly (a field
// not declared here is an error) and validated before anything is done with them. They
// are the model's side of the contracts; the runtime adds what a model must never
// decide (task and subtask IDs, raw_input, the aggregation of verdicts).

// Bounds on model outputs; a plan or a list past them is refused, not truncated.
const (
	maxCriteria  = 12
	maxQuestions = 3
	maxTextRunes = 2000
)

// perception is R1's answer: the TaskSpec fields R1 owns, and the clarifying questions
// it asks only when no interpretation at all is possible.
type perception struct {
	Intent      string               `json:"intent"`
	Constraints contract.Constraints `json:"constraints"`
	Questions   []string             `json:"questions"`
}

func (p perception) validate() error {
	if len(p.Questions) > maxQuestions {
		return fmt.Errorf("questions: at most %d, batched into one turn; got %d", maxQuestions, len(p.Questions))
	}
	for i, q := range p.Questions {
		if strings.TrimSpace(q) == "" {
			return fmt.Errorf("questions[%d]: empty", i)
		}
	}
	if strings.TrimSpace(p.Intent) == "" && len(p.Questions) == 0 {
		return errors.New("intent: missing; give a one-sentence intent, or questions when no interpretation is possible")
	}
	if strings.ContainsAny(p.Intent, "\n\r") {
		return errors.New("intent: must be one sentence on one line")
	}
	if err := checkText("intent", p.Intent); err != nil {
		return err
	}
	if d := p.Constraints.Deadline; d != nil && *d != "" && !isISO8601(*d) {
		return fmt.Errorf("constraints.deadline: %q is not an ISO 8601 date or time (e.g. 2026-03-01 or 2026-03-01T17:00:00Z)", *d)
	}
	return nil
}

func isISO8601(s string) bool {
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02"} {
		if _, err := time.Parse(layout, s); err == nil {
			return true
		}
	}
	return false
}

// planOutput is R2's answer: the task criteria (its interpretation of the intent) and the
// subtasks that satisfy them.
type planOutput struct {
	TaskCriteria contract.Criteria `json:"task_criteria"`
	SubTasks     []plannedSubTask  `json:"subtasks"`
}

// plannedSubTask is one subtask as the model plans it. Tools and Targets declare what the
// subtask will use, so that the plan validator can hold the plan to the MUST NOT set and
// the executor can hold R3 to the plan. A subtask_id or parent_task_id the model writes
// is read and thrown away: IDs come from the runtime.
type plannedSubTask struct {
	SubTaskID       *string           `json:"subtask_id,omitempty"`
	ParentTaskID    *string           `json:"parent_task_id,omitempty"`
	Intent          string            `json:"intent"`
	SuccessCriteria contract.Criteria `json:"success_criteria"`
	Context         string            `json:"context"`
	Deadline        *string           `json:"deadline"`
	Sequence        int               `json:"sequence"`
	Tools           []string          `json:"tools"`
	Targets         []string          `json:"targets"`
}

// validatePlan checks the shape of a plan; tools names the tools R3 has.
func validatePlan(p planOutput, tools []string, maxSubTasks int) error {
	if err := checkCriteria("task_criteria", p.TaskCriteria); err != nil {
		return err
	}
	if len(p.SubTasks) == 0 {
		return errors.New("subtasks: at least one is needed")
	}
	if len(p.SubTasks) > maxSubTasks {
		return fmt.Errorf("subtasks: at most %d, got %d", maxSubTasks, len(p.SubTasks))
	}
	for i, st := range p.SubTasks {
		at := fmt.Sprintf("subtasks[%d]", i)
		if strings.TrimSpace(st.Intent) == "" {
			return fmt.Errorf("%s.intent: missing", at)
		}
		if err := checkText(at+".intent", st.Intent); err != nil {
			return err
		}
		if err := checkText(at+".context", st.Context); err != nil {
			return err
		}
		if err := checkCriteria(at+".success_criteria", st.SuccessCriteria); err != nil {
			return err
		}
		if st.Sequence < 1 {
			return fmt.Errorf("%s.sequence: want 1 or more (same number = run in parallel), got %d", at, st.Sequence)
		}
		if st.Deadline != nil && *st.Deadline != "" && !isISO8601(*st.Deadline) {
			return fmt.Errorf("%s.deadline: %q is not an ISO 8601 date or time", at, *st.Deadline)
		}
		if len(st.Tools) == 0 {
			return fmt.Errorf("%s.tools: name the tools the subtask will use, from %s", at, strings.Join(tools, ", "))
		}
		seen := map[string]bool{}
		for j, t := range st.Tools {
			if !contains(tools, t) {
				return fmt.Errorf("%s.tools[%d]: unknown tool %q; the tools are %s", at, j, t, strings.Join(tools, ", "))
			}
			if seen[t] {
				return fmt.Errorf("%s.tools[%d]: %q is listed twice", at, j, t)
			}
			seen[t] = true
		}
		for j, t := range st.Targets {
			if strings.TrimSpace(t) == "" {
				return fmt.Errorf("%s.targets[%d]: empty", at, j)
			}
			if err := checkText(fmt.Sprintf("%s.targets[%d]", at, j), t); err != nil {
				return err
			}
		}
	}
	return nil
}

// execAnswer is R3's final answer after its tool calls.
type execAnswer struct {
	Status string `json:"status"`
	Output any    `json:"output"`
}

func (a execAnswer) validate() error {
	switch a.Status {
	case contract.ExecCompleted:
		if a.Output == nil {
			return errors.New("output: missing; a completed subtask reports its result")
		}
	case contract.ExecFailed:
		if a.Output == nil {
			return errors.New("output: missing; a failed subtask says why it could not be done")
		}
	default:
		return fmt.Errorf("status: got %q, want \"completed\" or \"failed\"", a.Status)
	}
	return nil
}

// judgement is R4a's answer: one verdict per success criterion, in order, and what to do
// about the failures.
type judgement struct {
	Verdicts []contract.CriterionVerdict `json:"verdicts"`
	WhatToDo string                      `json:"what_to_do"`
}

func validateJudgement(j judgement, criteria []string) error {
	if err := checkVerdicts(j.Verdicts, criteria); err != nil {
		return err
	}
	for _, v := range j.Verdicts {
		if v.Failed() && strings.TrimSpace(j.WhatToDo) == "" {
			return errors.New("what_to_do: missing; say what specific change would satisfy the failed criterion")
		}
	}
	return nil
}

// mergeAnswer is R4b's answer when every subtask matched: the merged result and one
// verdict per task criterion.
type mergeAnswer struct {
	Summary  string                      `json:"summary"`
	Merged   any                         `json:"merged"`
	Verdicts []contract.CriterionVerdict `json:"verdicts"`
}

func validateMerge(m mergeAnswer, criteria []string) error {
	if strings.TrimSpace(m.Summary) == "" {
		return errors.New("summary: missing")
	}
	if m.Merged == nil {
		return errors.New("merged: missing; give the merged result")
	}
	return checkVerdicts(m.Verdicts, criteria)
}

// checkVerdicts holds a verdict list to the per-criterion contract: exactly one verdict
// per criterion, in the given order and with its exact text, pass or fail, a failure
// class on every failure and none on a pass, and evidence for each.
func checkVerdicts(vs []contract.CriterionVerdict, criteria []string) error {
	if len(vs) != len(criteria) {
		return fmt.Errorf("verdicts: want exactly %d (one per criterion, in order), got %d", len(criteria), len(vs))
	}
	for i, v := range vs {
		at := fmt.Sprintf("verdicts[%d]", i)
		if strings.TrimSpace(v.Criterion) != strings.TrimSpace(criteria[i]) {
			return fmt.Errorf("%s.criterion: got %q, want the criterion text %q exactly", at, v.Criterion, criteria[i])
		}
		switch v.Mode {
		case "", contract.ModeVerifiable, contract.ModePlausible:
		default:
			return fmt.Errorf("%s.mode: got %q, want \"verifiable\", \"plausible\" or none", at, v.Mode)
		}
		switch v.Verdict {
		case contract.VerdictPass:
			if v.Class() != "" {
				return fmt.Errorf("%s.failure_class: must be null when the verdict is pass, got %q", at, v.Class())
			}
		case contract.VerdictFail:
			if c := v.Class(); c != contract.FailureLogical && c != contract.FailureEnvironmental {
				return fmt.Errorf("%s.failure_class: got %q, want \"logical\" or \"environmental\" on a failed criterion", at, c)
			}
		default:
			return fmt.Errorf("%s.verdict: got %q, want \"pass\" or \"fail\"", at, v.Verdict)
		}
		if strings.TrimSpace(v.Evidence) == "" {
			return fmt.Errorf("%s.evidence: missing; cite the tool output or result that decides the verdict", at)
		}
	}
	return nil
}

// checkCriteria holds a criteria list to the plan's contract: the statements as checkList
// wants them, each mode verifiable, plausible or not stated (then verifiable).
func checkCriteria(at string, cs contract.Criteria) error {
	if err := checkList(at, cs.Texts(), maxCriteria); err != nil {
		return err
	}
	for i, c := range cs {
		switch c.Mode {
		case "", contract.ModeVerifiable, contract.ModePlausible:
		default:
			return fmt.Errorf("%s[%d].mode: got %q, want \"verifiable\" or \"plausible\"", at, i, c.Mode)
		}
	}
	return nil
}

func checkList(at string, xs []string, limit int) error {
	if len(xs) == 0 {
		return fmt.Errorf("%s: at least one is needed", at)
	}
	if len(xs) > limit {
		return fmt.Errorf("%s: at most %d, got %d", at, limit, len(xs))
	}
	seen := map[string]bool{}
	for i, x := range xs {
		x = strings.TrimSpace(x)
		if x == "" {
			return fmt.Errorf("%s[%d]: empty", at, i)
		}
		if seen[x] {
			return fmt.Errorf("%s[%d]: %q is listed twice", at, i, x)
		}
		seen[x] = true
		if err := checkText(fmt.Sprintf("%s[%d]", at, i), x); err != nil {
			return err
		}
	}
	return nil
}

func checkText(at, s string) error {
	if n := len([]rune(s)); n > maxTextRunes {
		return fmt.Errorf("%s: %d characters, at most %d", at, n, maxTextRunes)
	}
	return nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// parseOutput is what CompleteJSON does with one answer, for tests and fuzzing: extract
// the JSON (think blocks and fences stripped), decode it strictly, validate it.
func parseOutput[T any](content string, validate func(T) error) (T, error) {
	var v T
	raw, err := llm.ExtractJSON(content)
	if err != nil {
		return v, err
	}
	if err := llm.DecodeStrict(raw, &v); err != nil {
		return v, err
	}
	if validate != nil {
		if err := validate(v); err != nil {
			return v, err
		}
	}
	return v, nil
}
