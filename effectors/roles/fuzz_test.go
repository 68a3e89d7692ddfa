package roles

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
)

// The fuzz targets feed arbitrary model output to each role's parser: it must never
// panic, and whatever it accepts must hold the contract the runtime relies on.

func FuzzPerceptionOutput(f *testing.F) {
	for _, s := range []string{
		`{"intent":"Find the port","constraints":{"scope":"config/","deadline":"2026-03-01T10:00:00Z"},"questions":[]}`,
		`<think>{"intent": 1}</think>{"intent":"","constraints":{"scope":null,"deadline":null},"questions":["Which?"]}`,
		"```json\n{\"intent\":\"x\",\"constraints\":{},\"questions\":null}\n```",
		`{"intent":"a\nb"}`, `[]`, `{"intent":"x"} trailing`, `<think>unterminated`, "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseOutput(s, perception.validate)
		if err != nil {
			return
		}
		if strings.ContainsAny(p.Intent, "\n\r") || len(p.Questions) > maxQuestions || (strings.TrimSpace(p.Intent) == "" && len(p.Questions) == 0) {
			t.Fatalf("accepted %+v", p)
		}
	})
}

func FuzzPlanOutput(f *testing.F) {
	for _, s := range []string{
		`{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["read_file"],"targets":["a"]}]}`,
		`{"task_criteria":["c"],"subtasks":[{"subtask_id":"x","intent":"i","success_criteria":["s","t"],"sequence":2,"tools":["shell","list_files"],"targets":["ls"],"deadline":"2026-01-01"}]}`,
		`{"task_criteria":[],"subtasks":[]}`, `{"subtasks":[{"sequence":-1}]}`, `{"task_criteria":["c"],"subtasks":[{"tools":["curl"]}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := parseOutput(s, func(p planOutput) error { return validatePlan(p, toolNames, 8) })
		if err != nil {
			return
		}
		if len(p.TaskCriteria) == 0 || len(p.SubTasks) == 0 || len(p.SubTasks) > 8 {
			t.Fatalf("accepted %+v", p)
		}
		for _, st := range p.SubTasks {
			if st.Sequence < 1 || len(st.Tools) == 0 || len(st.SuccessCriteria) == 0 || strings.TrimSpace(st.Intent) == "" {
				t.Fatalf("accepted subtask %+v", st)
			}
			for _, tool := range st.Tools {
				if !contains(toolNames, tool) {
					t.Fatalf("accepted unknown tool %q", tool)
				}
			}
		}
		mn := buildMustNot(Calibration{Avoid: []string{"shell", "read_file:a"}}, []string{"write_file"}, []string{"list_files:."}, toolNames)
		_ = (&Pipeline{tools: toolNames}).checkPlan(p, mn)
		_ = signature(p)
	})
}

func FuzzJudgementOutput(f *testing.F) {
	for _, s := range []string{
		`{"verdicts":[{"criterion":"a","verdict":"pass","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"fail","failure_class":"environmental","evidence":"e"}],"what_to_do":"w"}`,
		`{"verdicts":[{"criterion":"a","mode":"plausible","verdict":"fail","failure_class":"logical","evidence":"e"}],"what_to_do":""}`,
		`{"verdicts":null}`, `{"verdicts":[{"criterion":"a","verdict":"pass","failure_class":7}]}`,
	} {
		f.Add(s)
	}
	criteria := []string{"a", "b"}
	f.Fuzz(func(t *testing.T, s string) {
		j, err := parseOutput(s, func(j judgement) error { return validateJudgement(j, criteria) })
		if err != nil {
			return
		}
		checkAccepted(t, j.Verdicts, criteria)
	})
}

func FuzzMergeOutput(f *testing.F) {
	for _, s := range []string{
		`{"summary":"s","merged":{"port":1},"verdicts":[{"criterion":"a","verdict":"pass","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}]}`,
		`{"summary":"","merged":null,"verdicts":[]}`,
	} {
		f.Add(s)
	}
	criteria := []string{"a", "b"}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := parseOutput(s, func(m mergeAnswer) error { return validateMerge(m, criteria) })
		if err != nil {
			return
		}
		if m.Merged == nil || strings.TrimSpace(m.Summary) == "" {
			t.Fatalf("accepted %+v", m)
		}
		checkAccepted(t, m.Verdicts, criteria)
	})
}

func FuzzExecutorOutput(f *testing.F) {
	for _, s := range []string{`{"status":"completed","output":"x"}`, `{"status":"failed","output":{"why":"no"}}`, `{"status":"ok"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseOutput(s, execAnswer.validate)
		if err != nil {
			return
		}
		if (a.Status != contract.ExecCompleted && a.Status != contract.ExecFailed) || a.Output == nil {
			t.Fatalf("accepted %+v", a)
		}
	})
}

// FuzzToolArguments: the target of a tool call is read from the model's argument text.
func FuzzToolArguments(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"path":"../x"}`, `{}`, `null`, `{"path":7}`, `{"command":"a\u0000b"}`} {
		f.Add("shell", s)
		f.Add("read_file", s)
	}
	f.Fuzz(func(t *testing.T, tool, args string) {
		tgt := targetOf(tool, args)
		mn := buildMustNot(Calibration{}, nil, []string{tool + ":" + tgt}, toolNames)
		if utf8.ValidString(tgt) && tgt != "" && contains(toolNames, tool) && !mn.targetBlocked(tool, tgt).blocked() {
			t.Fatalf("%s target %q does not match itself", tool, tgt)
		}
	})
}

func checkAccepted(t *testing.T, vs []contract.CriterionVerdict, criteria []string) {
	t.Helper()
	if len(vs) != len(criteria) {
		t.Fatalf("accepted %d verdicts for %d criteria", len(vs), len(criteria))
	}
	for i, v := range vs {
		switch {
		case strings.TrimSpace(v.Criterion) != criteria[i]:
			t.Fatalf("accepted criterion %q for %q", v.Criterion, criteria[i])
		case v.Verdict == contract.VerdictFail && v.Class() != contract.FailureLogical && v.Class() != contract.FailureEnvironmental:
			t.Fatalf("accepted a failure of class %q", v.Class())
		case v.Verdict == contract.VerdictPass && v.Class() != "":
			t.Fatalf("accepted a pass of class %q", v.Class())
		case v.Verdict != contract.VerdictPass && v.Verdict != contract.VerdictFail:
			t.Fatalf("accepted verdict %q", v.Verdict)
		}
	}
}
