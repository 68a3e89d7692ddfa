package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// The memory loop runs one task twice through `spine run --memory`, on one store. In the
// first run the shell approach fails on logic while the loss moves, so GGS's
// change_approach writes a (tool:shell, env:local) Megram with σ −1, f 0.85: Avoid at
// M_dec −0.85. The second run's planner proposes that approach again; the plan check
// refuses it citing the pair, the next plan reads the files, and the task is accepted in
// one round with fewer model calls.

const (
	mlTask     = "Which port does the app listen on once config/override.yaml is applied?"
	mlInEffect = "the port reported is the one in effect after overrides"
	mlSetBy    = "the answer names the file that sets that port"
	mlTaskCrit = "the answer gives the port in effect and the file that sets it"
	mlGrep     = "grep -rn port config"
)

// mlPlan is a plan of one subtask; the plans differ in intent, tools and targets only.
func mlPlan(intent string, tools, targets []string) llmtest.Reply {
	return fmJSON(map[string]any{"task_criteria": []string{mlTaskCrit}, "subtasks": []map[string]any{{
		"intent": intent, "success_criteria": []string{mlInEffect, mlSetBy}, "context": "",
		"sequence": 1, "tools": tools, "targets": targets}}})
}

// mlVerdicts is R4a's answer: "pass" or a logical failure per criterion, in order.
func mlVerdicts(whatToDo string, inEffect, setBy string) llmtest.Reply {
	v := func(c, got string) map[string]any {
		if got == "pass" {
			return map[string]any{"criterion": c, "verdict": "pass", "failure_class": nil, "evidence": "port: 9090 in config/override.yaml"}
		}
		return map[string]any{"criterion": c, "verdict": "fail", "failure_class": "logical", "evidence": got}
	}
	return fmJSON(map[string]any{"what_to_do": whatToDo, "verdicts": []map[string]any{v(mlInEffect, inEffect), v(mlSetBy, setBy)}})
}

var (
	mlPerceived = fmJSON(map[string]any{"intent": "Report the port the app listens on after config/override.yaml is applied",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}})

	// Run 1, round 1: read_file on the base file only; both criteria fail on logic.
	mlPlanBase = mlPlan("Read config/app.yaml and report its port", []string{"read_file"}, []string{"config/app.yaml"})
	mlReadBase = []llmtest.Reply{fmCall("r1", "read_file", `{"path":"config/app.yaml"}`),
		fmJSON(map[string]any{"status": "completed", "output": "port: 8080"})}
	mlBaseWrong = mlVerdicts("read config/override.yaml as well and report the port it sets",
		"8080 is the base value; config/override.yaml is never read", "config/app.yaml is not the file whose port is in effect")

	// Round 2: the shell approach; the port is right, the file that sets it is not named.
	mlPlanGrep = mlPlan("Find every port setting under config/ with grep and report the one in effect",
		[]string{"shell"}, []string{mlGrep})
	mlGrepCall = []llmtest.Reply{fmCall("g1", "shell", `{"command":"`+mlGrep+`"}`),
		fmJSON(map[string]any{"status": "completed", "output": "9090"})}
	mlGrepHalf = mlVerdicts("say which of the two files sets the port in effect",
		"pass", "grep lists two port lines and the answer does not say which file wins")

	// Round 3, and run 2's second plan: read both files; everything passes.
	mlPlanBoth = mlPlan("Read config/app.yaml, then config/override.yaml, and report the port in effect and the file that sets it",
		[]string{"read_file"}, []string{"config/app.yaml", "config/override.yaml"})
	mlReadBoth = []llmtest.Reply{fmCall("b1", "read_file", `{"path":"config/app.yaml"}`),
		fmCall("b2", "read_file", `{"path":"config/override.yaml"}`),
		fmJSON(map[string]any{"status": "completed", "output": "port 9090, set by config/override.yaml over 8080 in config/app.yaml"})}
	mlAllPass = mlVerdicts("", "pass", "pass")
	mlMerged  = fmJSON(map[string]any{"summary": "The app listens on port 9090, set by config/override.yaml", "merged": "9090 (config/override.yaml)",
		"verdicts": []map[string]any{{"criterion": mlTaskCrit, "verdict": "pass", "failure_class": nil, "evidence": "9090, config/override.yaml"}}})
)

// times repeats a list of replies n times: R4a's fast loop asks R3 again while a
// criterion fails and RetryBudget (2) lasts, so a failing round is three attempts.
func times(n int, rs ...llmtest.Reply) []llmtest.Reply {
	var out []llmtest.Reply
	for range n {
		out = append(out, rs...)
	}
	return out
}

// mlRun is one `spine run` of the loop and what the test reads of it.
type mlRun struct {
	calls      int      // from the summary line
	llmCalls   int      // llm:* exchanges in the trace
	directives []string // the PlanDirectives GGS sent
	final      string   // the FinalResult's directive
	checks     [][]string
	trace      string
}

func TestMemoryClosesTheLoop(t *testing.T) {
	modelEnvFromConfig(t, 2)
	dir := t.TempDir()
	t.Setenv("SPINE_TRACE_DIR", dir)
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 8080\n")
	writeFile(t, filepath.Join(work, "config", "override.yaml"), "port: 9090\n")
	store := filepath.Join(dir, "memory")

	first := mlRunOnce(t, dir, "first", work, store, map[string][]llmtest.Reply{
		"R1":  {mlPerceived},
		"R2":  {mlPlanBase, mlPlanGrep, mlPlanBoth},
		"R3":  append(append(times(3, mlReadBase...), times(3, mlGrepCall...)...), mlReadBoth...),
		"R4a": append(append(times(3, mlBaseWrong), times(3, mlGrepHalf)...), mlAllPass),
		"R4b": {mlMerged},
	})
	// What the first run taught: break_symmetry favoured read_file (σ +1, f 0.75), and
	// change_approach judged shell (σ −1, f 0.85), one Megram each.
	for _, want := range []struct {
		tool, action string
		decision     float64
	}{{"read_file", contract.ActionExploit, 0.75}, {"shell", contract.ActionAvoid, -0.85}} {
		action, decision, megrams := mlPotentials(t, store, "tool:"+want.tool)
		if action != want.action || math.Abs(decision-want.decision) > 1e-6 || megrams != 1 {
			t.Errorf("after the first run, tool:%s × env:local: %s at M_dec %.6f from %d Megram(s), want %s at %.2f from 1",
				want.tool, action, decision, megrams, want.action, want.decision)
		}
	}
	second := mlRunOnce(t, dir, "second", work, store, map[string][]llmtest.Reply{
		"R1":  {mlPerceived},
		"R2":  {mlPlanGrep, mlPlanBoth},
		"R3":  mlReadBoth,
		"R4a": {mlAllPass},
		"R4b": {mlMerged},
	})

	// The first run: break_symmetry on read_file, change_approach on shell, then accept.
	if got, want := strings.Join(first.directives, ","), contract.DirectiveBreakSymmetry+","+contract.DirectiveChangeApproach; got != want {
		t.Errorf("first run: PlanDirectives %q, want %q", got, want)
	}
	for _, r := range []mlRun{first, second} {
		if r.final != contract.DirectiveAccept {
			t.Errorf("%s: FinalResult %q, want accept", r.trace, r.final)
		}
		if r.calls != r.llmCalls {
			t.Errorf("%s: the summary counts %d model call(s), the trace %d", r.trace, r.calls, r.llmCalls)
		}
	}
	for i, v := range first.checks {
		if len(v) != 0 {
			t.Errorf("first run: plan check %d refused: %q", i+1, v)
		}
	}

	// The second run: one round, its first plan refused by memory, its second accepted.
	if len(second.directives) != 0 {
		t.Errorf("second run: PlanDirectives %q, want none", second.directives)
	}
	const cite = `uses the tool shell, which memory says to avoid (tool:shell × env:local, M_dec −0.85)`
	if len(second.checks) != 2 {
		t.Fatalf("second run: %d plan checks %q, want 2", len(second.checks), second.checks)
	}
	if v := second.checks[0]; len(v) != 1 || !strings.Contains(v[0], cite) {
		t.Errorf("second run: the first plan check says %q, want one violation that %s", v, cite)
	}
	if v := second.checks[1]; len(v) != 0 {
		t.Errorf("second run: the second plan check refused %q", v)
	}

	t.Logf("model calls: first run %d, second run %d", first.calls, second.calls)
	if second.calls >= first.calls {
		t.Errorf("the second run made %d model call(s), the first %d: memory saved nothing", second.calls, first.calls)
	}
}

// mlRunOnce runs the task once against its own router and returns what the trace holds;
// the trace must replay byte for byte.
func mlRunOnce(t *testing.T, dir, name, work, store string, script map[string][]llmtest.Reply) mlRun {
	t.Helper()
	scripts := map[string][]llmtest.Reply{}
	for role, replies := range script {
		scripts["m-"+role] = replies
	}
	router := llmtest.NewRouter(t, scripts)
	cfg := filepath.Join(dir, name+".models.yaml")
	writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: 10s\nroles:\n"+
		"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
		"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", router.URL(), fmKey))
	trace := filepath.Join(dir, name+".trace.jsonl")

	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"run", "--config", cfg, "--workdir", work, "--memory", store,
		"--trace", trace, mlTask}, strings.NewReader(""), &out, &errOut)
	show := fmt.Sprintf("%s run: stdout:\n%s\nstderr:\n%s", name, out.String(), errOut.String())
	if code != exitOK {
		t.Fatalf("%s run: exit %d\n%s", name, code, show)
	}
	if u := router.Unused(); len(u) > 0 {
		t.Errorf("%s run: scripted replies unused: %s\n%s", name, strings.Join(u, ", "), show)
	}
	m := regexp.MustCompile(`· (\d+) model call\(s\)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("%s run: no summary line with the model calls\n%s", name, show)
	}
	r := mlRun{trace: trace}
	r.calls, _ = strconv.Atoi(m[1])

	recorded, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range fmTraceLines(t, recorded) {
		var x struct {
			Name     string `json:"name"`
			Response struct {
				Violations []string `json:"violations"`
			} `json:"response"`
		}
		if l.Kind == "exchange" {
			if err := json.Unmarshal([]byte(l.raw), &x); err != nil {
				t.Fatalf("%s: line %d: %v", trace, l.Seq, err)
			}
		}
		switch {
		case l.Kind == "exchange" && strings.HasPrefix(x.Name, "llm:"):
			r.llmCalls++
		case l.Kind == "exchange" && x.Name == "check:plan":
			r.checks = append(r.checks, x.Response.Violations)
		case l.Kind == "message" && l.Type == contract.TypePlanDirective:
			var pd contract.PlanDirective
			if err := json.Unmarshal(l.Payload, &pd); err != nil {
				t.Fatalf("%s: line %d: PlanDirective: %v", trace, l.Seq, err)
			}
			r.directives = append(r.directives, pd.Directive)
		case l.Kind == "message" && l.Type == contract.TypeFinalResult:
			var fr contract.FinalResult
			if err := json.Unmarshal(l.Payload, &fr); err != nil {
				t.Fatalf("%s: line %d: FinalResult: %v", trace, l.Seq, err)
			}
			r.final = fr.Directive
		}
	}

	var rout, rerr bytes.Buffer
	if code := Run(context.Background(), []string{"replay", "--check", trace}, nil, &rout, &rerr); code != exitOK ||
		!strings.Contains(rout.String(), "identical") {
		t.Errorf("%s run: replay --check: exit %d\n%s%s", name, code, rout.String(), rerr.String())
	}
	return r
}

// mlPotentials reads a tool's pair (space × env:local) with `spine memory potentials`,
// its decay taken at the moment its newest Megram was written: the pair's figures are
// then the ones the run left, however long the machine took to get here.
func mlPotentials(t *testing.T, store, space string) (action string, decision float64, megrams int) {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"memory", "ls", "--db", store, "--space", space,
		"--entity", "env:local", "--json"}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("memory ls %s: exit %d\n%s", space, code, errOut.String())
	}
	var written time.Time
	for dec := json.NewDecoder(&out); dec.More(); {
		var e struct {
			CreatedAt time.Time `json:"created_at"`
		}
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("memory ls %s: %v", space, err)
		}
		if e.CreatedAt.After(written) {
			written = e.CreatedAt
		}
	}
	if written.IsZero() {
		t.Fatalf("memory ls %s: no Megram", space)
	}
	out.Reset()
	if code := Run(context.Background(), []string{"memory", "potentials", "--db", store, "--space", space,
		"--entity", "env:local", "--json", "--now", written.Format(time.RFC3339Nano)}, nil, &out, &errOut); code != exitOK {
		t.Fatalf("memory potentials %s: exit %d\n%s", space, code, errOut.String())
	}
	var p struct {
		Potentials struct {
			Decision float64 `json:"decision"`
			Action   string  `json:"action"`
		} `json:"potentials"`
		Counts map[string]int `json:"counts"`
	}
	if err := json.Unmarshal(out.Bytes(), &p); err != nil {
		t.Fatalf("memory potentials %s: %v\n%s", space, err, out.String())
	}
	return p.Potentials.Action, p.Potentials.Decision, p.Counts[contract.LevelM]
}
