package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/taskrun"
)

// Secrets of the leak test: the API key, given in the configuration file only, and a
// token of the environment; both also sit in a .env file in the work dir, where the
// executor's tools can read them.
const (
	leakKey   = "sk-proj-Lk9Xw2Qv7Rt4Zp1Mb8Nc3Yd6Fh0Jg5Ks2"
	leakToken = "ghp_T0k3nW1thD1g1tsAndL3tt3rs0123456789"
)

// leakForms are the ways the key and the token may show: verbatim, base64 at each
// alignment (the part that depends on the secret alone), and the masked echo the
// executor's third command prints.
func leakForms() []string {
	forms := []string{leakKey, leakToken, leakKey[:12] + "..." + leakKey[len(leakKey)-4:]}
	for _, s := range []string{leakKey, leakToken} {
		for k := range 3 {
			e := base64.RawStdEncoding.EncodeToString(append(make([]byte, k), s...))
			forms = append(forms, e[(8*k+5)/6:8*(k+len(s))/6])
		}
	}
	return forms
}

// bodyRecorder is the endpoint `spine run` talks to: it keeps every request body and
// hands the request on to the scripted servers.
type bodyRecorder struct {
	mu     sync.Mutex
	bodies []string
}

func (b *bodyRecorder) serve(t *testing.T, next string) *httptest.Server {
	u, _ := url.Parse(next)
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: u.Scheme, Host: u.Host})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		b.mu.Lock()
		b.bodies = append(b.bodies, string(body))
		b.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(body))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (b *bodyRecorder) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.bodies...)
}

// TestRunScrubsLeakedSecrets runs `spine run` with an executor that reads the .env file
// verbatim, in base64 and as a masked echo through its tools, then quotes the key in its
// own answer. The key and the token are in no trace line, in no output, and in no request
// the endpoint received; the tools' results reach the model with "[REDACTED]" instead
// (base64(1) wraps the key across two lines; the marker covers the break),
// the trace still replays byte for byte, and it went to $SPINE_TRACE_DIR.
func TestRunScrubsLeakedSecrets(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".env"), []byte("OPENAI_API_KEY="+leakKey+"\nGITHUB_TOKEN="+leakToken+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	servers := map[string]*llmtest.Server{}
	for _, m := range []string{"m-r1", "m-r2", "m-r3", "m-r4a", "m-r4b"} {
		servers[m] = llmtest.NewServer(t)
	}
	criterion, task := "the .env file's variables are listed", "the answer lists the variables"
	servers["m-r1"].Push(textReply(map[string]any{"intent": "List the variables of .env",
		"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}}))
	servers["m-r2"].Push(textReply(map[string]any{"task_criteria": []string{task}, "subtasks": []map[string]any{{
		"intent": "Read .env and list its variables", "success_criteria": []string{criterion}, "context": "",
		"sequence": 1, "tools": []string{"read_file", "shell"}, "targets": []string{".env"}}}}))
	masked := `printf '%s...%s\n' "$(head -n 1 .env | cut -c16-27)" "$(head -n 1 .env | tail -c 5)"`
	servers["m-r3"].Push(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":".env"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c2", Name: "shell", Arguments: `{"command":"base64 .env"}`}}},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c3", Name: "shell", Arguments: jsonString(t, map[string]string{"command": masked})}}},
		textReply(map[string]any{"status": "completed", "output": "OPENAI_API_KEY is " + leakKey + " (" +
			base64.StdEncoding.EncodeToString([]byte(leakKey)) + "), GITHUB_TOKEN is " + leakToken}))
	servers["m-r4a"].Push(textReply(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
		{"criterion": criterion, "verdict": "pass", "failure_class": nil, "evidence": "OPENAI_API_KEY, GITHUB_TOKEN"}}}))
	servers["m-r4b"].Push(textReply(map[string]any{"summary": "The variables are listed", "merged": "OPENAI_API_KEY, GITHUB_TOKEN",
		"verdicts": []map[string]any{{"criterion": task, "verdict": "pass", "failure_class": nil, "evidence": "listed"}}}))
	var rec bodyRecorder
	front := rec.serve(t, modelRouter(t, servers, nil).URL)
	cfg := filepath.Join(dir, "models.yaml")
	if err := os.WriteFile(cfg, []byte("base_url: "+front.URL+"/v1\napi_key: "+leakKey+"\nmodel: m-r3\nroles:\n"+
		"  R1: {model: m-r1, tier: 1}\n  R2: {model: m-r2, tier: 2}\n  R3: {model: m-r3, tier: 1}\n"+
		"  R4a: {model: m-r4a, tier: 1}\n  R4b: {model: m-r4b, tier: 2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("GITHUB_TOKEN", leakToken)
	traces := filepath.Join(dir, "state", "traces")
	t.Setenv(taskrun.EnvTraceDir, traces)

	// The user pastes the key into the task too: it is scrubbed from the header and from
	// every request, and the trace still replays.
	stdout, stderr, code := runCLI(t, "run", "--config", cfg, "--workdir", work, "List the variables in .env; the key should be "+leakKey)
	if code != exitOK {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	m := regexp.MustCompile(`trace written to (\S+)`).FindStringSubmatch(stdout)
	if m == nil || filepath.Dir(m[1]) != traces {
		t.Fatalf("the trace did not go to $%s:\n%s", taskrun.EnvTraceDir, stdout)
	}
	if fi, err := os.Stat(traces); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("trace directory: want mode 0700, got %v (%v)", fi, err)
	}
	trace, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	bodies := rec.all()
	places := map[string]string{"the trace": string(trace), "stdout": stdout, "stderr": stderr}
	for i, b := range bodies {
		places[fmt.Sprintf("request %d", i+1)] = b
	}
	for where, text := range places {
		for _, f := range leakForms() {
			if strings.Contains(text, f) {
				t.Errorf("%s holds %q", where, f)
			}
		}
	}

	// The leak did happen and was caught: each tool result and the answer is recorded
	// with the marker, and the model read the marker back. Of the key's base64 only the
	// last character, which also holds filler bits, and the padding are left.
	keyB64 := base64.StdEncoding.EncodeToString([]byte(leakKey))
	for _, want := range []string{`"output":"OPENAI_API_KEY=[REDACTED]\nGITHUB_TOKEN=[REDACTED]\n"`,
		`"output":"` + base64.StdEncoding.EncodeToString([]byte("OPENAI_API_KEY=")) + `[REDACTED]`, `"output":"[REDACTED]\n"`,
		`OPENAI_API_KEY is [REDACTED] ([REDACTED]` + keyB64[8*len(leakKey)/6:] + `), GITHUB_TOKEN is [REDACTED]`} {
		if !strings.Contains(string(trace), want) {
			t.Errorf("the trace lacks %s", want)
		}
	}
	last := bodies[len(bodies)-1]
	var r3 []string
	for _, b := range bodies {
		if strings.Contains(b, `"model":"m-r3"`) {
			r3 = append(r3, b)
		}
	}
	if len(r3) != 4 || !strings.Contains(r3[3], `OPENAI_API_KEY=[REDACTED]\nGITHUB_TOKEN=[REDACTED]`) {
		t.Errorf("R3's requests (%d) do not carry the scrubbed tool results; last request:\n%s", len(r3), last)
	}
	if _, e, code := runCLI(t, "replay", "--check", m[1]); code != exitOK {
		t.Errorf("replay --check: exit %d\n%s", code, e)
	}
}

func jsonString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
