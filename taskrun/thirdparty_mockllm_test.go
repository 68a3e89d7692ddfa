//go:build linux

package taskrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/engine"
	spinetrace "github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// The live loop against an OpenAI-compatible server this project did not write:
// @dwmkerr/mock-llm, answering from the rules in testdata/thirdparty/mock-llm/mock-llm.yaml.
// Each case points the roles at models the rules answer well or badly; every run must end
// in the FinalResult its case names, leave a trace whose chain holds and which replays byte
// for byte, and have sent the mock exactly what the trace says it sent.

const mockKey = "sk-mock-llm-3f9a0c"

// mockCase is one `spine run` against the mock.
type mockCase struct {
	name   string
	models map[llm.RoleName]string // a role's model; the others are "spine-<role>"

	directive, reason string
	wire              []string // the models the mock was asked for, in order
	trace             []string // text the trace must hold, as the trace writes it
}

var mockCases = []mockCase{
	{name: "a round that goes well",
		directive: contract.DirectiveAccept,
		wire:      []string{"spine-R1", "spine-R2", "spine-R3", "spine-R3", "spine-R4a", "spine-R4b"},
		trace:     []string{`"tool_call_id":"call_read_1"`, `"prompt_tokens":120`}},
	{name: "prose instead of JSON",
		models:    map[llm.RoleName]string{llm.R1: "prose-R1"},
		directive: contract.DirectiveAbandon, reason: contract.FaultContractBroken,
		trace: []string{`"fault":{"role":"R1","kind":"contract_broken"`}},
	{name: "a refusal",
		models:    map[llm.RoleName]string{llm.R1: "refuses-R1"},
		directive: contract.DirectiveAbandon, reason: contract.FaultContractBroken,
		trace: []string{`"fault":{"role":"R1","kind":"contract_broken"`, `"refusal":"I'm sorry, I can't help with that request."`,
			`the model refused instead of answering: \"I'm sorry, I can't help with that request.\"`}},
	{name: "a plan cut off at the token limit",
		models:    map[llm.RoleName]string{llm.R2: "cut-R2"},
		directive: contract.DirectiveAbandon, reason: contract.FaultContractBroken,
		trace: []string{`"fault":{"role":"R2","kind":"contract_broken"`, `"finish_reason":"length"`,
			`the reply stopped at the token limit (finish reason \"length\"); answer more briefly`}},
	{name: "a tool that does not exist, then the right one",
		models:    map[llm.RoleName]string{llm.R3: "strays-R3"},
		directive: contract.DirectiveAccept,
		trace:     []string{`"name":"tool:drop_database"`, `refused: the tool drop_database is not in this subtask's plan`}},
	{name: "a tool call without id or type",
		models:    map[llm.RoleName]string{llm.R3: "noid-R3"},
		directive: contract.DirectiveAccept},
	{name: "content as an array of parts",
		models:    map[llm.RoleName]string{llm.R1: "parts-R1"},
		directive: contract.DirectiveAccept,
		wire:      []string{"parts-R1", "spine-R2", "spine-R3", "spine-R3", "spine-R4a", "spine-R4b"}},
	{name: "a 200 carrying an error object",
		models:    map[llm.RoleName]string{llm.R2: "error200-R2"},
		directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable,
		trace: []string{`"fault":{"role":"R2","kind":"model_unavailable"`,
			`the response has no choices; the body carries an error instead: upstream model is loading, try again later`}},
	{name: "tool-call arguments as an object",
		models:    map[llm.RoleName]string{llm.R3: "objargs-R3"},
		directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable,
		trace: []string{`"fault":{"role":"R3","kind":"model_unavailable"`, `"kind":"non_json_body"`,
			`the body reads: {\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"\",\"tool_calls\":[{\"id\":\"call_obj_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":{\"path\":\"config/app.yaml\"}}}]}`}},
	{name: "HTTP 503 once, then an answer",
		models:    map[llm.RoleName]string{llm.R2: "flaky-R2"},
		directive: contract.DirectiveAccept,
		wire:      []string{"spine-R1", "flaky-R2", "flaky-R2", "spine-R3", "spine-R3", "spine-R4a", "spine-R4b"},
		trace: []string{`"attempts":2,"attempt_log":[{"n":1,"status":503,"wait_ms":`,
			`"error":"status 503 Service Unavailable: The engine is currently overloaded, please try again later."},{"n":2,"status":200}]`}},
	{name: "HTTP 500 every time",
		models:    map[llm.RoleName]string{llm.R2: "status500-R2"},
		directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable,
		trace: []string{`"fault":{"role":"R2","kind":"model_unavailable"`, `"status":500`}},
	{name: "HTTP 401",
		models:    map[llm.RoleName]string{llm.R1: "status401-R1"},
		directive: contract.DirectiveAbandon, reason: contract.FaultKeyRefused,
		trace: []string{`"fault":{"role":"R1","kind":"key_refused"`, `Incorrect API key provided.`}},
	{name: "a completion without choices",
		models:    map[llm.RoleName]string{llm.R4b: "nochoices-R4b"},
		directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable,
		trace: []string{`"fault":{"role":"R4b","kind":"model_unavailable"`, `the response has no choices`}},
	{name: "a model the mock has no rule for: its own 404",
		models:    map[llm.RoleName]string{llm.R4a: "unknown-R4a"},
		directive: contract.DirectiveAbandon, reason: contract.FaultModelUnavailable,
		trace: []string{`"fault":{"role":"R4a","kind":"model_unavailable"`, `Cannot POST /v1/chat/completions`}},
}

func TestLiveLoopAgainstMockLLM(t *testing.T) {
	mock := startMockLLM(t)
	for _, c := range mockCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			runMockCase(t, mock, c)
		})
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("mock-llm's output:\n%s", mock.out.String())
		}
	})
}

func runMockCase(t *testing.T, mock *mockLLM, c mockCase) {
	rec := newRecorder(t, mock.url)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "config", "app.yaml"), []byte("port: 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	models := map[llm.RoleName]string{}
	var cfgText strings.Builder
	fmt.Fprintf(&cfgText, "base_url: %s/v1\napi_key: %s\nmodel: spine-R3\ntimeout: 10s\nroles:\n", rec.srv.URL, mockKey)
	for _, r := range llm.Roles {
		models[r] = "spine-" + string(r)
		if m, ok := c.models[r]; ok {
			models[r] = m
		}
		fmt.Fprintf(&cfgText, "  %s: {model: %s}\n", r, models[r])
	}
	cfgPath := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(cfgPath, []byte(cfgText.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	// Two attempts a call: a failing status is retried once, with a short real backoff.
	env := map[string]string{llm.EnvMaxAttempts: "2"}
	cfg, err := llm.LoadConfig(llm.Sources{File: cfgPath, Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := taskrun.RunTask(context.Background(), taskrun.Config{
		Task: "What port does the app use?", Workdir: work, LLM: cfg, ConfigPath: cfgPath,
		TraceDir: filepath.Join(dir, "traces"), Clock: clock.NewStep(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC), time.Millisecond),
		IDs: &engine.SeqIDs{Prefix: "id"}, RunID: "run-mock-llm", Environ: []string{}})
	if err != nil {
		t.Fatalf("RunTask: %v", err)
	}
	if res.Final == nil {
		t.Fatalf("no FinalResult; trace %s", res.TracePath)
	}
	if fr := res.Final; fr.Directive != c.directive || fr.Reason != c.reason {
		t.Errorf("FinalResult: directive %q reason %q, want %q %q (summary %q)", fr.Directive, fr.Reason, c.directive, c.reason, fr.Summary)
	}
	if fr := res.Final; fr.Directive == contract.DirectiveAccept && (fr.Output != "8080" || !strings.Contains(fr.Summary, "port 8080")) {
		t.Errorf("an accepted FinalResult without the port: output %v, summary %q", fr.Output, fr.Summary)
	}
	trace, err := os.ReadFile(res.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	checkMockTrace(t, trace, res)
	for _, want := range c.trace {
		if !bytes.Contains(trace, []byte(want)) {
			t.Errorf("the trace lacks %s", want)
		}
	}
	if bytes.Contains(trace, []byte(mockKey)) {
		t.Error("the API key is in the trace")
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		t.Fatal(err)
	}
	tracetest.AssertReplays(t, trace, rs)
	checkWire(t, rec, c, models, trace)
}

// checkMockTrace: the chain holds up to the head RunTask reported, the trace begins with
// its header and ends with halt (only the Auditor's findings after it), and holds exactly
// one FinalResult, the one RunTask returned.
func checkMockTrace(t *testing.T, trace []byte, res taskrun.Result) {
	t.Helper()
	rep, err := spinetrace.VerifyChain(bytes.NewReader(trace))
	if err != nil || rep.Head != res.TraceHead || rep.Torn != nil {
		t.Errorf("chain: %+v, %v; RunTask's head %s", rep, err, res.TraceHead)
	}
	lines := mockTraceLines(t, trace)
	if len(lines) == 0 || lines[0].Kind != "header" {
		t.Fatalf("the trace does not begin with its header:\n%.300s", trace)
	}
	halt := -1
	var finals []json.RawMessage
	for i, l := range lines {
		switch {
		case l.Kind == "halt":
			halt = i
		case l.Kind == "message" && l.Type == contract.TypeFinalResult:
			finals = append(finals, l.Payload)
		}
	}
	if halt < 0 {
		t.Fatal("the trace has no halt line")
	}
	for _, l := range lines[halt+1:] {
		if l.Kind != "audit" {
			t.Errorf("seq %d after the halt is %s, want only audit findings", l.Seq, l.Kind)
		}
	}
	if len(finals) != 1 {
		t.Fatalf("%d FinalResults in the trace, want 1", len(finals))
	}
	var fr contract.FinalResult
	if err := json.Unmarshal(finals[0], &fr); err != nil {
		t.Fatal(err)
	}
	if fr.Directive != res.Final.Directive || fr.Reason != res.Final.Reason || fr.Summary != res.Final.Summary {
		t.Errorf("the trace's FinalResult %+v is not RunTask's %+v", fr, *res.Final)
	}
}

// mockLine is what the test reads of a trace event: a message's type and payload, an
// exchange's name, request and response.
type mockLine struct {
	Seq      int64
	Kind     string
	Type     string
	Payload  json.RawMessage
	Name     string
	Request  json.RawMessage
	Response json.RawMessage
}

func mockTraceLines(t *testing.T, trace []byte) []mockLine {
	t.Helper()
	f, err := spinetrace.Read("trace", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	out := make([]mockLine, 0, len(f.Events))
	for _, e := range f.Events {
		l := mockLine{Seq: e.Seq, Kind: e.Kind}
		switch b := e.Body.(type) {
		case spinetrace.Message:
			l.Type, l.Payload = b.Type, b.Payload
		case spinetrace.Exchange:
			l.Name, l.Request, l.Response = b.Name, b.Request, b.Response
		}
		out = append(out, l)
	}
	return out
}

// checkWire holds what reached the mock to what the trace says was sent: every HTTP
// attempt of every llm exchange, in order, with its model and messages; the key in the
// Authorization header only; the tools R3 was offered; and the case's order of models.
func checkWire(t *testing.T, rec *recorder, c mockCase, models map[llm.RoleName]string, trace []byte) {
	t.Helper()
	reqs := rec.requests()
	chats := rec.chats(t)
	var got []string
	for i, r := range reqs {
		if r.Method != "POST" || r.Path != "/v1/chat/completions" {
			t.Errorf("wire request %d: %s %s, want POST /v1/chat/completions", i+1, r.Method, r.Path)
		}
		if r.Authorization != "Bearer "+mockKey {
			t.Errorf("wire request %d: Authorization %q", i+1, r.Authorization)
		}
		got = append(got, chats[i].Model)
	}
	if c.wire != nil && strings.Join(got, " ") != strings.Join(c.wire, " ") {
		t.Errorf("the mock was asked for %s, want %s", strings.Join(got, " "), strings.Join(c.wire, " "))
	}

	// What the trace says each attempt sent.
	var want []contract.ModelRequest
	for _, l := range mockTraceLines(t, trace) {
		if l.Kind != "exchange" || !strings.HasPrefix(l.Name, "llm:") {
			continue
		}
		var req contract.ModelRequest
		var resp contract.ModelResponse
		if err := json.Unmarshal(l.Request, &req); err != nil {
			t.Fatalf("seq %d: request: %v", l.Seq, err)
		}
		if err := json.Unmarshal(l.Response, &resp); err != nil {
			t.Fatalf("seq %d: response: %v", l.Seq, err)
		}
		role, _ := llm.ParseRoleName(strings.TrimPrefix(l.Name, "llm:"))
		if req.Model != models[role] {
			t.Errorf("seq %d: %s asked for model %q, configured %q", l.Seq, l.Name, req.Model, models[role])
		}
		for range resp.Attempts {
			want = append(want, req)
		}
	}
	if len(want) != len(chats) {
		t.Fatalf("the trace records %d attempts, the mock got %d requests (%s)", len(want), len(chats), strings.Join(got, " "))
	}
	for i, w := range want {
		g := chats[i]
		if g.Model != w.Model {
			t.Errorf("wire request %d: model %q, the trace says %q", i+1, g.Model, w.Model)
		}
		if g.Stream {
			t.Errorf("wire request %d: streamed", i+1)
		}
		if g.Temperature == nil || *g.Temperature > 1e-6 {
			t.Errorf("wire request %d: temperature %v, want (nearly) 0 sent explicitly", i+1, g.Temperature)
		}
		if len(g.Messages) != len(w.Messages) {
			t.Errorf("wire request %d: %d messages, the trace says %d", i+1, len(g.Messages), len(w.Messages))
			continue
		}
		if g.Messages[0].Role != llm.RoleSystem {
			t.Errorf("wire request %d: first message is %q, want the role's system prompt", i+1, g.Messages[0].Role)
		}
		checkToolPairing(t, i+1, g.Messages)
		for j, wm := range w.Messages {
			gm := g.Messages[j]
			if gm.Role != wm.Role || gm.Content != wm.Content || gm.ToolCallID != wm.ToolCallID || len(gm.ToolCalls) != len(wm.ToolCalls) {
				t.Errorf("wire request %d, message %d: %s %q (call %q, %d tool calls); the trace says %s %q (call %q, %d tool calls)",
					i+1, j+1, gm.Role, clipText(gm.Content), gm.ToolCallID, len(gm.ToolCalls), wm.Role, clipText(wm.Content), wm.ToolCallID, len(wm.ToolCalls))
				continue
			}
			for k, tc := range wm.ToolCalls {
				gc := gm.ToolCalls[k]
				if gc.ID != tc.ID || gc.Type != "function" || gc.Function.Name != tc.Name || gc.Function.Arguments != tc.Arguments {
					t.Errorf("wire request %d, message %d, tool call %d: %+v; the trace says %+v", i+1, j+1, k+1, gc, tc)
				}
			}
		}
		var offered, recorded []string
		for _, tool := range g.Tools {
			offered = append(offered, tool.Type+":"+tool.Function.Name)
			if !json.Valid(tool.Function.Parameters) {
				t.Errorf("wire request %d: tool %s's parameters are not JSON", i+1, tool.Function.Name)
			}
		}
		for _, tool := range w.Tools {
			recorded = append(recorded, "function:"+tool.Name)
		}
		if strings.Join(offered, " ") != strings.Join(recorded, " ") {
			t.Errorf("wire request %d: tools %v, the trace says %v", i+1, offered, recorded)
		}
	}
}

// checkToolPairing holds a request to OpenAI's rule: a tool message answers, by id, a
// call of the assistant turn before it, and every call of that turn is answered.
func checkToolPairing(t *testing.T, n int, msgs []wireMessage) {
	t.Helper()
	var open map[string]bool // the calls of the last assistant turn not yet answered
	for j, m := range msgs {
		switch m.Role {
		case llm.RoleTool:
			if !open[m.ToolCallID] {
				t.Errorf("wire request %d, message %d: a tool message answering %q, which the assistant turn before it did not call", n, j+1, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		case llm.RoleAssistant:
			if len(open) > 0 {
				t.Errorf("wire request %d, message %d: calls %v were not answered", n, j+1, open)
			}
			open = map[string]bool{}
			for _, tc := range m.ToolCalls {
				if tc.ID == "" || tc.Type != "function" {
					t.Errorf("wire request %d, message %d: a tool call with id %q and type %q", n, j+1, tc.ID, tc.Type)
				}
				open[tc.ID] = true
			}
			continue
		}
		if len(open) > 0 {
			t.Errorf("wire request %d, message %d: calls %v were not answered", n, j+1, open)
		}
		open = nil
	}
}

func clipText(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
