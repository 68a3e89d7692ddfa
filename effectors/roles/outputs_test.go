package roles

import (
	"reflect"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

var toolNames = []string{"shell", "read_file", "write_file", "list_files"}

func TestParseRoleOutputs(t *testing.T) {
	tests := []struct {
		name, content string
		parse         func(string) error
		wantErr       string // "" means valid
	}{
		{"perception", `{"intent":"Find the port","constraints":{"scope":null,"deadline":"2026-03-01"},"questions":[]}`, parsePerception, ""},
		{"perception in a fence after thinking", "<think>hm</think>\n```json\n{\"intent\":\"x\",\"constraints\":{\"scope\":\"a\",\"deadline\":null},\"questions\":[]}\n```", parsePerception, ""},
		{"perception questions only", `{"intent":"","constraints":{"scope":null,"deadline":null},"questions":["Which file?"]}`, parsePerception, ""},
		{"perception empty", `{"intent":" ","constraints":{"scope":null,"deadline":null},"questions":[]}`, parsePerception, "intent: missing"},
		{"perception two lines", `{"intent":"a\nb","constraints":{"scope":null,"deadline":null},"questions":[]}`, parsePerception, "one line"},
		{"perception bad deadline", `{"intent":"a","constraints":{"scope":null,"deadline":"next friday"},"questions":[]}`, parsePerception, "ISO 8601"},
		{"perception too many questions", `{"intent":"","constraints":{"scope":null,"deadline":null},"questions":["a","b","c","d"]}`, parsePerception, "at most 3"},
		{"perception invents a field", `{"intent":"a","constraints":{"scope":null,"deadline":null},"questions":[],"task_id":"t"}`, parsePerception, "unknown field"},
		{"perception prose", `I think the user wants a port.`, parsePerception, "no usable JSON"},

		{"plan", `{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["read_file"],"targets":["a"]}]}`, parsePlan, ""},
		{"plan with model ids", `{"task_criteria":["c"],"subtasks":[{"subtask_id":"x","parent_task_id":"y","intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, ""},
		{"plan no subtasks", `{"task_criteria":["c"],"subtasks":[]}`, parsePlan, "subtasks: at least one"},
		{"plan no criteria", `{"task_criteria":[],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, "task_criteria: at least one"},
		{"plan unknown tool", `{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["curl"],"targets":[]}]}`, parsePlan, `unknown tool "curl"`},
		{"plan no tools", `{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":[],"targets":[]}]}`, parsePlan, "name the tools"},
		{"plan sequence 0", `{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":0,"tools":["shell"],"targets":[]}]}`, parsePlan, "sequence"},
		{"plan duplicate criterion", `{"task_criteria":["c","c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, "listed twice"},
		{"plan with modes", `{"task_criteria":[{"criterion":"c","mode":"plausible"}],"subtasks":[{"intent":"i","success_criteria":[{"criterion":"s","mode":"verifiable"},{"criterion":"t","mode":"plausible"},"u"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, ""},
		{"plan unknown mode", `{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":[{"criterion":"s","mode":"likely"}],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, `mode "likely", want "verifiable" or "plausible"`},
		{"plan criterion object without text", `{"task_criteria":[{"mode":"plausible"}],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, "task_criteria[0]: empty"},
		{"plan criterion object invents a field", `{"task_criteria":[{"criterion":"c","mode":"plausible","weight":2}],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, "unknown field"},
		{"plan criterion a number", `{"task_criteria":[3],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, "a criterion is a string or"},
		{"plan duplicate criterion across forms", `{"task_criteria":["c",{"criterion":"c","mode":"plausible"}],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":1,"tools":["shell"],"targets":[]}]}`, parsePlan, "listed twice"},
		{"plan string sequence", `{"task_criteria":["c"],"subtasks":[{"intent":"i","success_criteria":["s"],"context":"","sequence":"1","tools":["shell"],"targets":[]}]}`, parsePlan, `"subtasks.sequence"`},

		{"judgement", `{"verdicts":[{"criterion":"a","verdict":"pass","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"fail","failure_class":"logical","evidence":"e"}],"what_to_do":"w"}`, parseJudgement, ""},
		{"judgement holistic", `{"verdicts":[{"criterion":"everything","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":""}`, parseJudgement, "want exactly 2"},
		{"judgement reworded", `{"verdicts":[{"criterion":"A","verdict":"pass","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":""}`, parseJudgement, `want the criterion text "a"`},
		{"judgement fail without class", `{"verdicts":[{"criterion":"a","verdict":"fail","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":"w"}`, parseJudgement, "on a failed criterion"},
		{"judgement pass with class", `{"verdicts":[{"criterion":"a","verdict":"pass","failure_class":"logical","evidence":"e"},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":""}`, parseJudgement, "must be null"},
		{"judgement no evidence", `{"verdicts":[{"criterion":"a","verdict":"pass","failure_class":null,"evidence":""},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":""}`, parseJudgement, "evidence: missing"},
		{"judgement no what_to_do", `{"verdicts":[{"criterion":"a","verdict":"fail","failure_class":"environmental","evidence":"e"},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":""}`, parseJudgement, "what_to_do: missing"},
		{"judgement maybe", `{"verdicts":[{"criterion":"a","verdict":"maybe","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"pass","failure_class":null,"evidence":"e"}],"what_to_do":""}`, parseJudgement, `want "pass" or "fail"`},

		{"merge", `{"summary":"s","merged":{"port":1},"verdicts":[{"criterion":"a","verdict":"pass","failure_class":null,"evidence":"e"},{"criterion":"b","verdict":"fail","failure_class":"logical","evidence":"e"}]}`, parseMerge, ""},
		{"merge no merged", `{"summary":"s","merged":null,"verdicts":[]}`, parseMerge, "merged: missing"},

		{"exec", `{"status":"completed","output":"done"}`, parseExec, ""},
		{"exec failed", `{"status":"failed","output":"no such file"}`, parseExec, ""},
		{"exec unknown status", `{"status":"done","output":"x"}`, parseExec, `want "completed" or "failed"`},
		{"exec no output", `{"status":"completed"}`, parseExec, "output: missing"},
		{"exec tool_calls from the model", `{"status":"completed","output":"x","tool_calls":["shell:rm → ok"]}`, parseExec, "unknown field"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.parse(tc.content)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("unexpected error: %v", err)
			case tc.wantErr != "" && err == nil:
				t.Fatalf("accepted, want an error containing %q", tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), tc.wantErr):
				t.Fatalf("error %q does not contain %q", err, tc.wantErr)
			}
		})
	}
}

func parsePerception(s string) error {
	_, err := parseOutput(s, perception.validate)
	return err
}

func parsePlan(s string) error {
	_, err := parseOutput(s, func(p planOutput) error { return validatePlan(p, toolNames, 8) })
	return err
}

func parseJudgement(s string) error {
	_, err := parseOutput(s, func(j judgement) error { return validateJudgement(j, []string{"a", "b"}) })
	return err
}

func parseMerge(s string) error {
	_, err := parseOutput(s, func(m mergeAnswer) error { return validateMerge(m, []string{"a", "b"}) })
	return err
}

func parseExec(s string) error {
	_, err := parseOutput(s, execAnswer.validate)
	return err
}

func TestMustNot(t *testing.T) {
	avoid := func(tool, tgt string) Verdict {
		return Verdict{Action: contract.ActionAvoid, Tool: tool, Target: tgt, Pair: "tool:" + tool, Decision: -2.55, Text: tool + " " + tgt + ": avoid"}
	}
	// Only verdicts on tools and targets are enforced; Avoid text, even shaped like a
	// tool, is prompt only, and a verdict on a tool R3 does not have is dropped.
	cal := Calibration{Avoid: []string{"tool:shell", "never touch prod"}, Verdicts: []Verdict{
		avoid("write_file", ""), avoid("shell", " make deploy "), avoid("read_file", "secrets/"), avoid("fly", ""),
		{Action: contract.ActionCaution, Tool: "list_files", Pair: "tool:list_files", Text: "list_files: caution"}}}
	mn := buildMustNot(cal, []string{"list_files"}, []string{"read_file:config/app.yaml", "shell:grep  port x"}, toolNames)
	tests := []struct {
		tool, target string
		blocked      bool
	}{
		{"write_file", "", true},
		{"list_files", "", true},
		{"read_file", "", false},
		{"read_file", "config/app.yaml", true},
		{"read_file", "./config//app.yaml", true},
		{"read_file", "config/app.v2.yaml", false},
		{"shell", "grep port x", true},
		{"shell", "make deploy", true},
		{"shell", "make test", false},
		{"read_file", "secrets", true},
		{"list_files", "config", false},
	}
	for _, tc := range tests {
		got := mn.toolBlocked(tc.tool).blocked()
		if tc.target != "" {
			got = mn.targetBlocked(tc.tool, tc.target).blocked()
		}
		if got != tc.blocked {
			t.Errorf("%s %q: blocked = %v, want %v", tc.tool, tc.target, got, tc.blocked)
		}
	}
	if strings.Join(mn.text, "|") != "tool:shell|never touch prod" {
		t.Errorf("prompt-only entries = %q", mn.text)
	}
	if mn.toolBlocked("shell").blocked() || mn.toolBlocked("fly").blocked() {
		t.Error("prompt-only text or an unknown tool was enforced")
	}
	p := &Pipeline{}
	want := []string{`read_file on "config/app.yaml" (blocked by the GGS directive)`, "read_file secrets/: avoid",
		"shell  make deploy : avoid", `shell on "grep  port x" (blocked by the GGS directive)`,
		"tool list_files (blocked by the GGS directive)", "write_file : avoid",
		"tool:shell (memory says MUST NOT)", "never touch prod (memory says MUST NOT)"}
	if lines := p.mustNotLines(mn); strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

func TestCheckPlanRejectsARepeatedPlan(t *testing.T) {
	plan := planOutput{TaskCriteria: contract.Verifiable("c"), SubTasks: []plannedSubTask{{Intent: "Read  A", SuccessCriteria: contract.Verifiable("s"),
		Sequence: 1, Tools: []string{"read_file", "list_files"}, Targets: []string{"a"}}}}
	p := &Pipeline{tools: toolNames}
	if v := p.checkPlan(plan, mustNot{}); len(v) != 0 {
		t.Fatalf("first plan rejected: %q", v)
	}
	p.r2.plans = append(p.r2.plans, planRecord{round: 1, signature: signature(plan)})
	same := plan
	same.SubTasks = []plannedSubTask{{Intent: "read a", SuccessCriteria: contract.Verifiable("s"), Sequence: 1,
		Tools: []string{"list_files", "read_file"}, Targets: []string{" a "}, SubTaskID: ptr("other-id")}}
	v := p.checkPlan(same, mustNot{})
	if len(v) != 1 || !strings.Contains(v[0], "same as the plan of round 1") {
		t.Errorf("violations = %q", v)
	}
}

func TestGroupsBySequence(t *testing.T) {
	as := []contract.Assignment{{SubTask: contract.SubTask{Sequence: 2}}, {SubTask: contract.SubTask{Sequence: 1}},
		{SubTask: contract.SubTask{Sequence: 2}}, {SubTask: contract.SubTask{Sequence: 5}}}
	if got, want := groups(as), [][]int{{1}, {0, 2}, {3}}; !reflect.DeepEqual(got, want) {
		t.Errorf("groups = %v, want %v", got, want)
	}
}

func TestTargetOf(t *testing.T) {
	for _, tc := range []struct{ tool, args, want string }{
		{"shell", `{"command":"ls -l"}`, "ls -l"},
		{"read_file", `{"path":"a/b"}`, "a/b"},
		{"list_files", `{}`, "*"},
		{"list_files", `{"path":"config","pattern":"*.go","recursive":true}`, "config/**/*.go"},
		{"write_file", `{"path":"x","content":"y"}`, "x"},
		{"read_file", `not json`, ""},
		{"shell", `{"command":7}`, ""},
	} {
		if got := targetOf(tc.tool, tc.args); got != tc.want {
			t.Errorf("targetOf(%s, %s) = %q, want %q", tc.tool, tc.args, got, tc.want)
		}
	}
}

func ptr(s string) *string { return &s }
