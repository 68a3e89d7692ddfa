package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/effectors/distill"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

const runTestKey = "sk-run-test-4b1d9e"

// modelRouter is one OpenAI-compatible endpoint that hands each request to the scripted
// server of the model it names, so one `spine run` can script every role separately.
func modelRouter(t *testing.T, byModel map[string]*llmtest.Server, onRequest func(model string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Model string `json:"model"`
		}
		_ = json.Unmarshal(body, &req)
		if onRequest != nil {
			onRequest(req.Model)
		}
		target, ok := byModel[req.Model]
		if !ok {
			http.Error(w, "no script for model "+req.Model, http.StatusNotFound)
			return
		}
		u, _ := url.Parse(target.URL())
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.URL.Path = u.Path + strings.TrimPrefix(r.URL.Path, "/v1")
		httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host}).ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func textReply(v any) llmtest.Reply {
	b, _ := json.Marshal(v)
	return llmtest.Text(string(b))
}

// acceptRun scripts a task that every role handles in one round, ending in accept.
type acceptRun struct {
	dir, cfg, trace string
	servers         map[string]*llmtest.Server
}

func newAcceptRun(t *testing.T, onRequest func(model string)) *acceptRun {
	t.Helper()
	ar := &acceptRun{dir: t.TempDir(), servers: map[string]*llmtest.Server{}}
	if err := os.MkdirAll(filepath.Join(ar.dir, "work", "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ar.dir, "work", "config", "app.yaml"), []byte("port: 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	criterion, task := "the port is read from config/app.yaml", "the answer names the port"
	for _, m := range []string{"m-r1", "m-r2", "m-r3", "m-r4a", "m-r4b"} {
		ar.servers[m] = llmtest.NewServer(t)
	}
	ar.servers["m-r1"].Push(textReply(map[string]any{"intent": "Report the port the app listens on",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}}))
	ar.servers["m-r2"].Push(textReply(map[string]any{"task_criteria": []string{task}, "subtasks": []map[string]any{{
		"intent": "Read config/app.yaml and report its port", "success_criteria": []string{criterion}, "context": "",
		"sequence": 1, "tools": []string{"read_file"}, "targets": []string{"config/app.yaml"}}}}))
	ar.servers["m-r3"].Push(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"config/app.yaml"}`}}},
		textReply(map[string]any{"status": "completed", "output": "port: 8080"}))
	ar.servers["m-r4a"].Push(textReply(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
		{"criterion": criterion, "verdict": "pass", "failure_class": nil, "evidence": "port: 8080"}}}))
	ar.servers["m-r4b"].Push(textReply(map[string]any{"summary": "The app listens on port 8080", "merged": "8080",
		"verdicts": []map[string]any{{"criterion": task, "verdict": "pass", "failure_class": nil, "evidence": "8080"}}}))
	router := modelRouter(t, ar.servers, onRequest)
	ar.cfg = filepath.Join(ar.dir, "models.yaml")
	if err := os.WriteFile(ar.cfg, []byte(`base_url: `+router.URL+`/v1
model: m-r3
roles:
  R1: {model: m-r1, tier: 1}
  R2: {model: m-r2, tier: 2}
  R3: {model: m-r3, tier: 1}
  R4a: {model: m-r4a, tier: 1}
  R4b: {model: m-r4b, tier: 2}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", runTestKey)
	ar.trace = filepath.Join(ar.dir, "run.trace.jsonl")
	return ar
}

// run runs `spine run` with extra flags and checks the run was accepted, every scripted
// reply used, the key kept out of the trace, and the trace replays byte for byte.
func (ar *acceptRun) run(t *testing.T, extra ...string) (stdout string, trace []byte) {
	t.Helper()
	var out, errOut bytes.Buffer
	args := append([]string{"run", "--config", ar.cfg, "--workdir", filepath.Join(ar.dir, "work"), "--trace", ar.trace}, extra...)
	code := Run(context.Background(), append(args, "What port does the app use?"), strings.NewReader(""), &out, &errOut)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
	for _, want := range []string{"R7   → User FinalResult", "→ accept ✅", "trace written to " + ar.trace} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stdout lacks %q:\n%s", want, out.String())
		}
	}
	for m, s := range ar.servers {
		if n := s.Pending(); n != 0 {
			t.Errorf("%s: %d scripted replies unused", m, n)
		}
	}
	recorded, err := os.ReadFile(ar.trace)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(recorded, []byte(runTestKey)) {
		t.Error("the API key is in the trace")
	}
	var rout bytes.Buffer
	if code := Run(context.Background(), []string{"replay", "--check", ar.trace}, nil, &rout, &errOut); code != exitOK {
		t.Fatalf("replay --check: exit %d\n%s%s", code, rout.String(), errOut.String())
	}
	return out.String(), recorded
}

// TestRunAcceptsOnFirstRound runs `spine run` end to end against scripted roles over
// HTTP: the task is accepted, the trace replays byte for byte, the live Auditor finds
// nothing, and the key is nowhere in the trace.
func TestRunAcceptsOnFirstRound(t *testing.T) {
	out, _ := newAcceptRun(t, nil).run(t)
	// Each role's message is shown from the payload the post recorded.
	for _, want := range []string{"· step 1 · Read config/app.yaml and report its port · tools read_file",
		"1 subtask(s) · task criteria:", "· completed · 1 tool call(s)", "· ✓ matched · 1/1 criteria · 1 attempt(s)",
		"· all subtasks matched · The app listens on port 8080"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "AuditReport") {
		t.Errorf("the live Auditor reported findings on a clean run:\n%s", out)
	}
}

// TestRunWatchKeepsRulesThatDoNotLoad edits the --rules file while R1 is working in the
// first round of a two-round run (R3's endpoint is down in it, and GGS retries); the engine
// polls the file before the second round's select_objective: the edit does not load, so
// it is shown and traced and the run goes on with the rules it started with.
func TestRunWatchKeepsRulesThatDoNotLoad(t *testing.T) {
	rules := filepath.Join(t.TempDir(), "ggs.yaml")
	src, err := os.ReadFile("../../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rules, src, 0o644); err != nil {
		t.Fatal(err)
	}
	edited := false
	ar := newAcceptRun(t, func(model string) {
		if model == "m-r1" && !edited {
			edited = true
			broken := strings.Replace(string(src), "params.theta", "params.theat", 1)
			if err := os.WriteFile(rules, []byte(broken), 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	// R3's endpoint is down in the first round (one attempt a call): a fault, which the
	// rules answer with a retry, so the accept comes in round 2.
	t.Setenv("SPINE_LLM_MAX_ATTEMPTS", "1")
	ar.servers["m-r3"].Prepend(llmtest.Reply{Status: 503, ErrorMessage: "overloaded"})
	out, trace := ar.run(t, "--rules", rules, "--watch")
	if !strings.Contains(out, "did not load; the running rules stay") || !strings.Contains(out, `unknown param "theat"`) {
		t.Errorf("the failed reload is not shown:\n%s", out)
	}
	if !bytes.Contains(trace, []byte(`"kind":"rules_reload_failed","path":"`+rules)) {
		t.Error("the failed reload is not in the trace")
	}
}

// TestRunWithMemoryDreamsAfterTheTask: with --memory, the Dreamer runs once the task has
// its FinalResult. Six fresh abandons of one tag pair are consolidated into a constraint
// worded by the planner's model; the exchange is journalled next to the trace and the
// pass replays from that journal with `spine memory dream --replay`.
func TestRunWithMemoryDreamsAfterTheTask(t *testing.T) {
	ar := newAcceptRun(t, nil)
	ar.servers["m-r2"].Push(textReply(map[string]any{"content": "Do not rm anything under /var/lib."}))
	now := time.Now().UTC().Format(time.RFC3339)
	var writes strings.Builder
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&writes, `{"id":"a%d","space":"tool:rm","entity":"path:/var/lib","state":"abandon","f":0.95,"sigma":-1,"k":0.05,"created_at":%q}`+"\n", i, now)
	}
	writesPath := filepath.Join(ar.dir, "writes.jsonl")
	if err := os.WriteFile(writesPath, []byte(writes.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	mem := filepath.Join(ar.dir, "mem")
	if _, e, code := runCLI(t, "memory", "import", "--db", mem, writesPath); code != exitOK {
		t.Fatalf("import: %s", e)
	}
	out, _ := ar.run(t, "--memory", mem)
	journal := strings.TrimSuffix(ar.trace, ".jsonl") + ".distill.jsonl"
	if !strings.Contains(out, "memory: Dreamer pass: 1 consolidated") || !strings.Contains(out, "distiller journal "+journal) {
		t.Fatalf("no Dreamer pass after the task:\n%s", out)
	}
	c, _, _ := runCLI(t, "memory", "ls", "--db", mem, "--level", "C", "--json")
	if !strings.Contains(c, "Do not rm anything under /var/lib.") {
		t.Errorf("the constraint is not in memory:\n%s", c)
	}
	if _, err := distill.LoadJournal(journal); err != nil {
		t.Errorf("journal: %v", err)
	}
}
