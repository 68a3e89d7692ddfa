package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/rules"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// The fault matrix drives `spine run` end to end, through the CLI, against one
// OpenAI-compatible endpoint that plays every role from a script and injects one fault
// of the machinery per case, or cancels the run as a given model call begins, or
// bounds its iterations. Whatever fails, the run must end in a FinalResult decided by a
// rule (with R2's graceful failure when it abandons), leave a trace that begins with its
// header and ends with halt, and replay byte for byte.

const fmKey = "sk-fault-matrix-7c2e91"

// fmRoles are the roles the matrix scripts, each on a model of its own ("m-R1", …).
var fmRoles = []string{"R1", "R2", "R3", "R4a", "R4b"}

// The task of every case but the evidence one: read the port from config/app.yaml.
const (
	fmTask      = "What port does the app use?"
	fmCriterion = "the port is read from config/app.yaml"
	fmTaskCrit  = "the answer names the port"
)

// Replies of a round that goes well; a case's script is made of them and of faults.
var (
	fmPerceived = fmJSON(map[string]any{"intent": "Report the port the app listens on",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}})
	fmPlan = fmJSON(map[string]any{"task_criteria": []string{fmTaskCrit}, "subtasks": []map[string]any{{
		"intent": "Read config/app.yaml and report its port", "success_criteria": []string{fmCriterion}, "context": "",
		"sequence": 1, "tools": []string{"read_file"}, "targets": []string{"config/app.yaml"}}}})
	fmRead   = fmCall("c1", "read_file", `{"path":"config/app.yaml"}`)
	fmDone   = fmJSON(map[string]any{"status": "completed", "output": "port: 8080"})
	fmPassed = fmJSON(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
		{"criterion": fmCriterion, "verdict": "pass", "failure_class": nil, "evidence": "port: 8080"}}})
	fmMerged = fmJSON(map[string]any{"summary": "The app listens on port 8080", "merged": "8080",
		"verdicts": []map[string]any{{"criterion": fmTaskCrit, "verdict": "pass", "failure_class": nil, "evidence": "8080"}}})
)

// Faults.
var (
	fm500       = llmtest.Fail(500, "upstream unavailable")
	fm502HTML   = llmtest.Reply{Status: 502, Body: "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"}
	fmProse     = llmtest.Text("Sure! The app's port is in its config file; I would read config/app.yaml first.")
	fmNoChoices = llmtest.Reply{Body: `{"id":"chatcmpl-empty","object":"chat.completion","created":1700000000,"model":"m","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":0,"total_tokens":12}}`}
	fmStalled   = llmtest.Reply{Stall: 5 * time.Second, Content: "never sent: the client gave up first"}
	// fmCancel cancels the run as the call it answers begins (runFaultCase gives it the
	// cancel function); the answer is never sent.
	fmCancel = llmtest.Reply{Stall: time.Minute, Content: fmCancelMark}
)

const fmCancelMark = "never sent: the run is cancelled as this call begins"

// The evidence case: R3 can only be refused, and R4a passes the subtask anyway.
const (
	fmOutTask = "Write the app's port into config/out.yaml"
	fmOutCrit = "config/out.yaml holds the port 8080"
	fmOutTC   = "config/out.yaml exists and names port 8080"
)

var (
	fmOutPerceived = fmJSON(map[string]any{"intent": "Write the app's port into config/out.yaml",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}})
	fmOutPlan = fmJSON(map[string]any{"task_criteria": []string{fmOutTC}, "subtasks": []map[string]any{{
		"intent": "Write port: 8080 to config/out.yaml", "success_criteria": []string{fmOutCrit}, "context": "",
		"sequence": 1, "tools": []string{"write_file"}, "targets": []string{"config/out.yaml"}}}})
	fmOutPlan2 = fmJSON(map[string]any{"task_criteria": []string{fmOutTC}, "subtasks": []map[string]any{{
		"intent": "Write port: 8080 to config/out.yaml with tee", "success_criteria": []string{fmOutCrit}, "context": "",
		"sequence": 1, "tools": []string{"shell"}, "targets": []string{"tee config/out.yaml"}}}})
	fmOutPassed = fmJSON(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
		{"criterion": fmOutCrit, "verdict": "pass", "failure_class": nil, "evidence": "the file was written"}}})
)

// faultCase is one row of the matrix.
type faultCase struct {
	name string
	// script holds each role's replies, in order; a role it leaves out plays the round
	// that goes well once (fmHappy), and an empty list means the role is never asked.
	script map[string][]llmtest.Reply
	task   string
	// timeout is the per-call timeout (default 10s); replanCap, when set, runs the
	// shipped rules with the opt-in replan cap at that many PlanDirectives.
	timeout   string
	replanCap int
	// maxIter, when set, is spine run's --max-iterations.
	maxIter int

	exit       int
	directive  string   // the FinalResult's
	reason     string   // the FinalResult's
	directives []string // the PlanDirectives GGS sent, in order
	trace      []string // text the trace must hold (JSON as the trace writes it)
}

// fmHappy is each role's part of a round that goes well.
var fmHappy = map[string][]llmtest.Reply{
	"R1": {fmPerceived}, "R2": {fmPlan}, "R3": {fmRead, fmDone}, "R4a": {fmPassed}, "R4b": {fmMerged},
}

var faultMatrix = []faultCase{
	{name: "429 with a short Retry-After, then an answer",
		script: map[string][]llmtest.Reply{"R2": {llmtest.RateLimited("1"), fmPlan}},
		exit:   exitOK, directive: contract.DirectiveAccept,
		trace: []string{`"attempts":2,"attempt_log":[{"n":1,"status":429,"retry_after_ms":1000,"wait_ms":1000,"error":"status 429 Too Many Requests: rate limit reached"},{"n":2,"status":200}]`}},
	{name: "429 whose Retry-After exceeds the limit, once",
		script: map[string][]llmtest.Reply{"R2": {llmtest.RateLimited("300"), fmPlan}},
		exit:   exitOK, directive: contract.DirectiveAccept, directives: []string{contract.DirectiveRetry},
		trace: []string{`"attempt_log":[{"n":1,"status":429,"retry_after_ms":300000,"error":"status 429 Too Many Requests: rate limit reached"}]`,
			`the endpoint asks to retry after 5m0s, beyond the 2m0s limit`}},
	{name: "429 whose Retry-After exceeds the limit, every time",
		script: map[string][]llmtest.Reply{"R1": {llmtest.RateLimited("300"), llmtest.RateLimited("86400")},
			"R2": {}, "R3": {}, "R4a": {}, "R4b": {}},
		exit: exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable, directives: []string{contract.DirectiveRetry},
		trace: []string{`"retry_after_ms":86400000`}},
	{name: "R1: 500 until the retries are spent",
		script: map[string][]llmtest.Reply{"R1": {fm500, fm500, fm500, fm500}, "R2": {}, "R3": {}, "R4a": {}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable, directives: []string{contract.DirectiveRetry},
		trace: []string{`"fault":{"role":"R1","kind":"model_unavailable"`, `gave up after 2 attempts`}},
	{name: "R2: 500 until the retries are spent",
		script: map[string][]llmtest.Reply{"R2": {fm500, fm500, fm500, fm500}, "R3": {}, "R4a": {}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable, directives: []string{contract.DirectiveRetry},
		trace: []string{`"fault":{"role":"R2","kind":"model_unavailable"`}},
	{name: "R3: 500 for one round, then OK",
		script: map[string][]llmtest.Reply{"R3": {fm500, fm500, fmRead, fmDone}},
		exit:   exitOK, directive: contract.DirectiveAccept, directives: []string{contract.DirectiveRetry},
		trace: []string{`"fault":{"role":"R3","kind":"model_unavailable"`}},
	{name: "R4b: 500 until the retries are spent",
		script: map[string][]llmtest.Reply{"R3": {fmRead, fmDone, fmRead, fmDone}, "R4a": {fmPassed, fmPassed},
			"R4b": {fm500, fm500, fm500, fm500}},
		exit: exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable, directives: []string{contract.DirectiveRetry},
		trace: []string{`"fault":{"role":"R4b","kind":"model_unavailable"`}},
	{name: "502 with an HTML body, then an answer",
		script: map[string][]llmtest.Reply{"R1": {fm502HTML, fmPerceived}},
		exit:   exitOK, directive: contract.DirectiveAccept,
		trace: []string{`{"n":1,"status":502,"kind":"non_json_body","wait_ms":`, `502 Bad Gateway`}},
	{name: "a dropped connection, then an answer",
		script: map[string][]llmtest.Reply{"R4a": {llmtest.Dropped(), fmPassed}},
		exit:   exitOK, directive: contract.DirectiveAccept,
		trace: []string{`{"n":1,"kind":"connection","wait_ms":`}},
	{name: "a body cut short, then an answer",
		script: map[string][]llmtest.Reply{"R2": {llmtest.CutShort(fmPlan.Content), fmPlan}},
		exit:   exitOK, directive: contract.DirectiveAccept,
		trace: []string{`{"n":1,"status":200,"kind":"connection","wait_ms":`}},
	{name: "a timeout, then an answer",
		script:  map[string][]llmtest.Reply{"R3": {fmStalled, fmRead, fmDone}},
		timeout: "200ms",
		exit:    exitOK, directive: contract.DirectiveAccept,
		trace: []string{`{"n":1,"kind":"timeout","wait_ms":`, `no complete answer within the per-call timeout of 200ms`}},
	{name: "prose instead of JSON, corrected",
		script: map[string][]llmtest.Reply{"R1": {fmProse, fmPerceived}},
		exit:   exitOK, directive: contract.DirectiveAccept},
	{name: "prose instead of JSON, for two rounds",
		script: map[string][]llmtest.Reply{"R1": {fmProse, fmProse, fmProse, fmProse}, "R2": {}, "R3": {}, "R4a": {}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultContractBroken, directives: []string{contract.DirectiveRetry},
		trace: []string{`"fault":{"role":"R1","kind":"contract_broken"`}},
	{name: "truncated JSON, corrected",
		script: map[string][]llmtest.Reply{"R2": {llmtest.Text(fmPlan.Content[:len(fmPlan.Content)/2]), fmPlan}},
		exit:   exitOK, directive: contract.DirectiveAccept},
	{name: "fenced JSON",
		script: map[string][]llmtest.Reply{"R2": {fmFenced(fmPlan)}, "R4b": {fmFenced(fmMerged)}},
		exit:   exitOK, directive: contract.DirectiveAccept},
	{name: "think blocks",
		script: map[string][]llmtest.Reply{"R1": {fmThinking(fmPerceived)}, "R3": {fmRead, fmThinking(fmDone)}, "R4a": {fmThinking(fmPassed)}},
		exit:   exitOK, directive: contract.DirectiveAccept},
	{name: "choices: [], then an answer",
		script: map[string][]llmtest.Reply{"R1": {fmNoChoices, fmPerceived}},
		exit:   exitOK, directive: contract.DirectiveAccept, directives: []string{contract.DirectiveRetry},
		trace: []string{`the response has no choices`}},
	{name: "bad tool arguments from R3",
		script: map[string][]llmtest.Reply{"R3": {
			{ToolCalls: []llmtest.ToolCall{{ID: "b1", Name: "read_file", Arguments: `{"path":"config/app.yaml"`},
				{ID: "b2", Name: "read_file", Arguments: `{"path":"config/app.yaml","mode":"fast"}`}}},
			fmRead, fmDone}},
		exit: exitOK, directive: contract.DirectiveAccept,
		trace: []string{`"refused":true,"evidence":"read_file: → refused: read_file: arguments: not valid JSON: it ends before the object closes"`,
			`"refused":true,"evidence":"read_file: → refused: read_file: argument \"mode\": unknown field; the fields are path"`}},
	{name: "an outage of R4a for one round",
		script: map[string][]llmtest.Reply{"R3": {fmRead, fmDone, fmRead, fmDone},
			"R4a": {llmtest.Fail(503, "overloaded"), llmtest.Dropped(), fmPassed}},
		exit: exitOK, directive: contract.DirectiveAccept, directives: []string{contract.DirectiveRetry},
		trace: []string{`"fault":{"role":"R4a","kind":"model_unavailable"`}},
	// Cancelled (Ctrl-C, a caller's context) at five moments of a round: each still ends
	// in a FinalResult that abandon_on_fault decides, with reason cancelled.
	{name: "cancelled while R1 reads the task",
		script: map[string][]llmtest.Reply{"R1": {fmCancel}, "R2": {}, "R3": {}, "R4a": {}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultCancelled,
		trace: []string{`"op":"interrupt"`, `"reason":"cancelled"`}},
	{name: "cancelled while R2 plans",
		script: map[string][]llmtest.Reply{"R2": {fmCancel}, "R3": {}, "R4a": {}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultCancelled,
		trace: []string{`"reason":"cancelled"`}},
	{name: "cancelled while R3 works",
		script: map[string][]llmtest.Reply{"R3": {fmCancel}, "R4a": {}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultCancelled,
		trace: []string{`"reason":"cancelled"`}},
	{name: "cancelled while R4a judges",
		script: map[string][]llmtest.Reply{"R4a": {fmCancel}, "R4b": {}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultCancelled,
		trace: []string{`"reason":"cancelled"`}},
	{name: "cancelled while R4b merges",
		script: map[string][]llmtest.Reply{"R4b": {fmCancel}},
		exit:   exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultCancelled,
		trace: []string{`"reason":"cancelled"`}},
	{name: "the iteration bound",
		maxIter: 1,
		script: map[string][]llmtest.Reply{"R4b": {fmJSON(map[string]any{"summary": "No port was found", "merged": "",
			"verdicts": []map[string]any{{"criterion": fmTaskCrit, "verdict": "fail", "failure_class": "environmental", "evidence": "no port named"}}})}},
		exit: exitFail, directive: contract.DirectiveAbandon, reason: contract.FaultIterationBound,
		trace: []string{`"reason":"iteration_bound","detail":"reached the bound of 1 iterations"`}},
	{name: "a validator that passes without evidence",
		task:      fmOutTask,
		replanCap: 1,
		script: map[string][]llmtest.Reply{
			"R1": {fmOutPerceived},
			"R2": {fmOutPlan, fmOutPlan2},
			"R3": {fmCall("w1", "write_file", `{"path":"../out.yaml","content":"port: 8080\n"}`), fmDone,
				fmCall("s1", "shell", `{"command":"sudo tee config/out.yaml"}`), fmDone},
			"R4a": {fmOutPassed, fmOutPassed}, "R4b": {}},
		exit: exitFail, directive: contract.DirectiveAbandon, directives: []string{contract.DirectiveChangePath},
		trace: []string{`"evidence":"no successful action: every tool call was refused or failed (1 refused, 0 failed)"`}},
}

// TestFaultMatrix runs every case of the matrix as its own `spine run`, in parallel: each
// has its own endpoint, work dir and trace. Two attempts a call keep the real backoff
// waits short.
func TestFaultMatrix(t *testing.T) {
	modelEnvFromConfig(t, 2)
	t.Setenv("SPINE_TRACE_DIR", t.TempDir())
	for _, c := range faultMatrix {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runFaultCase(t, c)
		})
	}
}

// runFaultCase runs one case and returns the path of its trace.
func runFaultCase(t *testing.T, c faultCase) string {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "config", "app.yaml"), []byte("port: 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scripts := map[string][]llmtest.Reply{}
	for _, role := range fmRoles {
		replies, ok := c.script[role]
		if !ok {
			replies = fmHappy[role]
		}
		scripts["m-"+role] = replies
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, replies := range scripts {
		for i := range replies {
			if replies[i].Content == fmCancelMark {
				replies[i].Begin = cancel
			}
		}
	}
	router := llmtest.NewRouter(t, scripts)
	timeout := c.timeout
	if timeout == "" {
		timeout = "10s"
	}
	cfg := filepath.Join(dir, "models.yaml")
	writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: %s\nroles:\n"+
		"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
		"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", router.URL(), fmKey, timeout))
	trace := filepath.Join(dir, "run.trace.jsonl")
	args := []string{"run", "--config", cfg, "--workdir", work, "--trace", trace}
	if c.replanCap > 0 {
		args = append(args, "--rules", fmRules(t, dir, c.replanCap))
	}
	if c.maxIter > 0 {
		args = append(args, "--max-iterations", fmt.Sprint(c.maxIter))
	}
	task := c.task
	if task == "" {
		task = fmTask
	}

	var out, errOut bytes.Buffer
	code := Run(ctx, append(args, task), strings.NewReader(""), &out, &errOut)
	show := func() string { return fmt.Sprintf("stdout:\n%s\nstderr:\n%s", out.String(), errOut.String()) }
	if code != c.exit {
		t.Errorf("exit %d, want %d\n%s", code, c.exit, show())
	}
	if u := router.Unused(); len(u) > 0 {
		t.Errorf("scripted replies unused: %s\n%s", strings.Join(u, ", "), show())
	}

	recorded, err := os.ReadFile(trace)
	if err != nil {
		t.Fatalf("no trace: %v\n%s", err, show())
	}
	if bytes.Contains(recorded, []byte(fmKey)) {
		t.Error("the API key is in the trace")
	}
	lines := fmTraceLines(t, recorded)
	if len(lines) == 0 || lines[0].Kind != "header" {
		t.Fatalf("the trace does not begin with its header:\n%.300s", recorded)
	}
	// The trace ends with halt; only the Auditor's findings may follow it.
	halt := -1
	for i, l := range lines {
		if l.Kind == "halt" {
			halt = i
		}
	}
	if halt < 0 {
		t.Fatalf("the trace has no halt line; its last line:\n%s", lines[len(lines)-1].raw)
	}
	for _, l := range lines[halt+1:] {
		if l.Kind != "audit" {
			t.Errorf("line %d after the halt is %s, want only audit findings", l.Seq, l.Kind)
		}
	}

	var finals []contract.FinalResult
	var directives []string
	for _, l := range lines {
		switch {
		case l.Kind != "message":
		case l.Type == contract.TypeFinalResult:
			var fr contract.FinalResult
			if err := json.Unmarshal(l.Payload, &fr); err != nil {
				t.Fatalf("line %d: FinalResult: %v", l.Seq, err)
			}
			finals = append(finals, fr)
		case l.Type == contract.TypePlanDirective:
			var pd contract.PlanDirective
			if err := json.Unmarshal(l.Payload, &pd); err != nil {
				t.Fatalf("line %d: PlanDirective: %v", l.Seq, err)
			}
			directives = append(directives, pd.Directive)
		}
	}
	if len(finals) != 1 {
		t.Fatalf("%d FinalResults in the trace, want 1\n%s", len(finals), show())
	}
	if fr := finals[0]; fr.Directive != c.directive || fr.Reason != c.reason {
		t.Errorf("FinalResult: directive %q reason %q, want %q %q (summary %q)", fr.Directive, fr.Reason, c.directive, c.reason, fr.Summary)
	}
	// An abandoned task carries R2's graceful failure, whatever ended it.
	if fr := finals[0]; (fr.Directive == contract.DirectiveAbandon) != (fr.Failure != nil) ||
		fr.Failure != nil && (fr.Failure.Summary == "" || len(fr.Failure.NextMoves) < 2) {
		t.Errorf("FinalResult %s: graceful failure %+v", fr.Directive, fr.Failure)
	}
	if got, want := strings.Join(directives, ","), strings.Join(c.directives, ","); got != want {
		t.Errorf("PlanDirectives %q, want %q", got, want)
	}
	for _, want := range c.trace {
		if !bytes.Contains(recorded, []byte(want)) {
			t.Errorf("the trace lacks %s", want)
		}
	}

	var rout, rerr bytes.Buffer
	if code := Run(context.Background(), []string{"replay", "--check", trace}, nil, &rout, &rerr); code != exitOK ||
		!strings.Contains(rout.String(), "identical") {
		t.Errorf("replay --check: exit %d\n%s%s", code, rout.String(), rerr.String())
	}
	return trace
}

// fmLine is what the matrix reads of a trace event: a message's type and payload.
type fmLine struct {
	Seq     int64
	Kind    string
	Type    string
	Payload json.RawMessage
	raw     string
}

func fmTraceLines(t *testing.T, trace []byte) []fmLine {
	t.Helper()
	f, err := spinetrace.Read("trace", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]fmLine, 0, len(f.Events))
	for _, e := range f.Events {
		l := fmLine{Seq: e.Seq, Kind: e.Kind, raw: string(e.Raw)}
		if m, ok := spinetrace.As[spinetrace.Message](&e); ok {
			l.Type, l.Payload = m.Type, m.Payload
		}
		out = append(out, l)
	}
	return out
}

// fmRules writes the shipped GGS rules with the replan cap on, outside the work dir.
func fmRules(t *testing.T, dir string, replanCap int) string {
	t.Helper()
	src, err := fs.ReadFile(rules.FS, "ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(src), "replan_cap: 0 ", fmt.Sprintf("replan_cap: %d ", replanCap), 1)
	if edited == string(src) {
		t.Fatal("rules/ggs.yaml: no replan_cap: 0 to edit")
	}
	p := filepath.Join(dir, "ggs.yaml")
	writeFile(t, p, edited)
	return p
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func fmJSON(v any) llmtest.Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and lists always marshal
	}
	return llmtest.Text(string(b))
}

func fmCall(id, name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Arguments: args}}}
}

// fmFenced wraps a reply's JSON in a code fence, as chat models often do.
func fmFenced(r llmtest.Reply) llmtest.Reply {
	return llmtest.Text("Here is the JSON:\n```json\n" + r.Content + "\n```\n")
}

// fmThinking puts a reasoning model's think block before a reply's JSON.
func fmThinking(r llmtest.Reply) llmtest.Reply {
	return llmtest.Text("<think>\nThe user wants JSON. {\"not\": \"this\"} is a draft.\n</think>\n" + r.Content)
}
