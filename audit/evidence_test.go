package audit

import (
	"testing"

	"github.com/agentspine/spine/contract"
)

// judgedOutcome is an outcome with one verdict per criterion and the given tool calls.
func judgedOutcome(task, id, status string, calls []string, verdicts ...string) contract.SubTaskOutcome {
	o := outcome(task, id, status, 1)
	o.ToolCalls = calls
	for i, v := range verdicts {
		o.CriteriaVerdicts = append(o.CriteriaVerdicts, contract.CriterionVerdict{Criterion: []string{"c1", "c2", "c3"}[i], Verdict: v})
	}
	return o
}

// plannedSubtask sends the SubTask with the tools its plan names, as the role pipeline's
// Assignment carries them.
func (s *stream) plannedSubtask(task, id string, tools ...string) int64 {
	return s.send("R2", "R3", contract.TypeSubTask, task, map[string]any{"subtask_id": id, "parent_task_id": task, "tools": tools})
}

func (s *stream) judged(o contract.SubTaskOutcome) int64 {
	return s.send("R4a", "R4b", contract.TypeSubTaskOutcome, o.ParentTaskID, o)
}

func TestVerdictWithoutEvidence(t *testing.T) {
	const (
		read    = "read_file:a.txt → alpha"
		refused = "read_file:/etc/x → refused: the path is outside the sandbox root"
		ioErr   = "read_file:b.txt → error: b.txt: no such file or directory"
		exit2   = "shell:ls nope → ls: nope: No such file [exit status 2]"
	)
	m, f := contract.OutcomeMatched, contract.OutcomeFailed
	runCases(t, []detectCase{
		{name: "every call refused or failed", build: func(s *stream) {
			s.judged(judgedOutcome("t", "a", m, []string{refused, ioErr, exit2}, "pass", "pass"))
		}, want: []want{{KindVerdictWithoutEvidence, []int64{1},
			`subtask "a": 2 criteria judged pass (the first "c1"), but none of its 3 tool call(s) succeeded (1 refused, 2 failed)`}}},
		{name: "a pass in a failed outcome", build: func(s *stream) {
			s.judged(judgedOutcome("t", "a", f, []string{refused}, "fail", "pass"))
		}, want: []want{{KindVerdictWithoutEvidence, []int64{1}, `subtask "a": "c2" judged pass, but none of its 1 tool call(s) succeeded (1 refused, 0 failed)`}}},
		{name: "an unreadable entry is no success", build: func(s *stream) {
			s.judged(judgedOutcome("t", "a", m, []string{"not an entry"}, "pass"))
		}, want: []want{{KindVerdictWithoutEvidence, []int64{1}, `(0 refused, 1 failed)`}}},
		{name: "one success is evidence", build: func(s *stream) {
			s.judged(judgedOutcome("t", "a", m, []string{refused, read}, "pass"))
		}},
		{name: "no pass, nothing to back", build: func(s *stream) {
			s.judged(judgedOutcome("t", "a", f, []string{refused}, "fail"))
		}},
		{name: "no call although the plan named tools", build: func(s *stream) {
			s.plannedSubtask("t", "a", "read_file", "shell")
			s.judged(judgedOutcome("t", "a", m, nil, "pass"))
		}, want: []want{{KindVerdictWithoutEvidence, []int64{1, 2}, `subtask "a": "c1" judged pass, but its plan named read_file, shell and no tool was called`}}},
		{name: "no call, no tools planned: judged on its text", build: func(s *stream) {
			s.plannedSubtask("t", "a")
			s.judged(judgedOutcome("t", "a", m, nil, "pass"))
		}},
		{name: "no call, plan unknown", build: func(s *stream) {
			s.judged(judgedOutcome("t", "a", m, nil, "pass"))
		}},
		{name: "R4b's report repeats the outcome: reported once", build: func(s *stream) {
			o := judgedOutcome("t", "a", m, []string{refused}, "pass")
			s.judged(o)
			s.summary("t", 10, o)
		}, want: []want{{KindVerdictWithoutEvidence, []int64{1}, `subtask "a"`}}},
		{name: "seen only in R4b's report", build: func(s *stream) {
			s.replan("t", 10, judgedOutcome("t", "a", f, []string{exit2}, "pass", "fail"))
		}, want: []want{{KindVerdictWithoutEvidence, []int64{1}, `subtask "a": "c1" judged pass`}}},
	})
}

func TestNoFinalResult(t *testing.T) {
	spec := func(s *stream, task string) int64 {
		return s.send("R1", "R2", contract.TypeTaskSpec, task, contract.TaskSpec{TaskID: task})
	}
	runCases(t, []detectCase{
		{name: "posted, never decided", build: func(s *stream) {
			spec(s, "t")
			s.manifest("t", "a")
			s.outcome("t", "a", contract.OutcomeFailed)
			s.replan("t", 10, failed("t", "a"))
		}, want: []want{{KindNoFinalResult, []int64{1, 4},
			`task "t" began with a TaskSpec (seq 1) and ended without a FinalResult; its last message is a ReplanRequest from R4b (seq 4)`}}},
		{name: "a model call is the task's last word", build: func(s *stream) {
			spec(s, "t")
			s.modelCall("R2", "")
		}, want: []want{{KindNoFinalResult, []int64{1, 2}, `its last message is a ModelCall from R2 (seq 2)`}}},
		{name: "decided", build: func(s *stream) {
			spec(s, "t")
			s.final("t", 0)
		}},
		{name: "only the undecided task of two", build: func(s *stream) {
			spec(s, "u")
			spec(s, "t")
			s.final("u", 0)
		}, want: []want{{KindNoFinalResult, []int64{2}, `task "t" began with a TaskSpec (seq 2)`}}},
		{name: "no TaskSpec, no beginning to judge", build: func(s *stream) {
			s.directive("t", cp, 0.5, 0.4)
		}},
		{name: "a second TaskSpec does not move the beginning", build: func(s *stream) {
			spec(s, "t")
			spec(s, "t")
		}, want: []want{{KindNoFinalResult, []int64{1, 2}, `began with a TaskSpec (seq 1)`}}},
	})
}
