package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/internal/golden"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/trace"
)

// retriesTrace is a recorded `spine run` whose planner call was answered 429 with
// Retry-After 1 first; TestTraceShowLiveRetries writes it again under -rewrite.
const retriesTrace = "testdata/traceshow/retries.trace.jsonl"

func TestTraceShowGolden(t *testing.T) {
	for _, f := range append(traceFixtures(t), retriesTrace) {
		for _, form := range []struct{ ext, flag string }{{"txt", ""}, {"all.txt", "--all"}} {
			args := []string{"trace", "show", f}
			if form.flag != "" {
				args = append(args, form.flag)
			}
			code, out, errs := runSpine(t, args...)
			if code != exitOK {
				t.Fatalf("spine %s: exit %d, stderr %q", strings.Join(args, " "), code, errs)
			}
			// Every exchange line says more than its name.
			for _, l := range strings.Split(out, "\n") {
				if i := strings.Index(l, "exchange  "); i >= 0 && !strings.Contains(l[i:], " · ") {
					t.Errorf("spine %s: an exchange line with no content: %q", strings.Join(args, " "), l)
				}
			}
			name := fixtureName(f)
			if f == retriesTrace {
				name = "retries"
			}
			golden.Check(t, filepath.Join("testdata", "traceshow", name+"."+form.ext), []byte(out), *updateScripts)
		}
	}
}

// TestTraceShowContent pins what the pipeline fixture's lines must say, whatever else
// the goldens hold.
func TestTraceShowContent(t *testing.T) {
	f := "../../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	_, out, _ := runSpine(t, "trace", "show", f)
	_, all, _ := runSpine(t, "trace", "show", "--all", f)
	for _, c := range []struct{ out, want string }{
		{out, "exchange  llm:R3 · model-r3 · 40→8 tokens · 1000ms · 1 attempt(s) → call read_file"},
		{out, "exchange  tool:read_file config/service.yaml · exit 0 · 1000ms → name: api listen: 8443"},
		{out, "exchange  check:plan round 2 attempt 1 · no violations"},
		{out, `message   R1   → R2   TaskSpec        port-lookup · "Find the port the service listens on, from its settings under config/" · scope config/`},
		{out, "blocked targets: read_file:config/settings.yaml; read_file:config/settings.yml"},
		{all, "\n                 request:\n                   {\n                     \"model\": \"model-r1\","},
		{all, "\n                 response:\n                   {\n                     \"violations\": []\n                   }\n"},
	} {
		if !strings.Contains(c.out, c.want) {
			t.Errorf("trace show lacks %q", c.want)
		}
	}
	if strings.Contains(out, "request:") {
		t.Error("trace show without --all shows requests")
	}
}

// TestTraceShowLiveRetries runs `spine run` against a scripted endpoint whose first answer
// to the planner is a 429, and reads the attempts back from the trace.
func TestTraceShowLiveRetries(t *testing.T) {
	modelEnvFromConfig(t, 2)
	t.Setenv("SPINE_TRACE_DIR", t.TempDir())
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 8080\n")
	scripts := map[string][]llmtest.Reply{}
	for _, role := range fmRoles {
		scripts["m-"+role] = fmHappy[role]
	}
	scripts["m-R2"] = []llmtest.Reply{llmtest.RateLimited("1"), fmPlan}
	router := llmtest.NewRouter(t, scripts)
	cfg := filepath.Join(dir, "models.yaml")
	writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: 10s\nroles:\n"+
		"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
		"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", router.URL(), fmKey))
	trace := filepath.Join(dir, "run.trace.jsonl")
	var out, errOut bytes.Buffer
	if code := Run(context.Background(), []string{"run", "--config", cfg, "--workdir", work, "--trace", trace, fmTask},
		strings.NewReader(""), &out, &errOut); code != exitOK {
		t.Fatalf("spine run: exit %d\n%s\n%s", code, out.String(), errOut.String())
	}
	code, shown, errs := runSpine(t, "trace", "show", trace)
	if code != exitOK {
		t.Fatalf("trace show: exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"exchange  llm:R2 · m-R2 · ",
		" · 2 attempt(s) → stop",
		"attempt 1: HTTP 429 · retry-after 1000ms · waited 1000ms · status 429 Too Many Requests: rate limit reached\n",
		"attempt 2: answered (HTTP 200)\n",
		"exchange  tool:read_file config/app.yaml · exit 0 · ",
	} {
		if !strings.Contains(shown, want) {
			t.Errorf("trace show lacks %q:\n%s", want, shown)
		}
	}
	if *updateScripts {
		data, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(retriesTrace, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// FuzzTimelineLine feeds arbitrary event lines to the timeline, with and without --all:
// an error for what is not JSON, a line for the rest, never a panic.
func FuzzTimelineLine(f *testing.F) {
	for _, path := range []string{"../../fixtures/pipeline/change_path_then_accept.trace.jsonl", retriesTrace} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		for _, l := range bytes.Split(b, []byte("\n")) {
			f.Add(l)
		}
	}
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"llm:R2","response":{"attempt_log":[{"n":1,"retry_after_ms":null,"wait_ms":-5}]}}`))
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"memory:calibrate","request":{"targets":[null]},"response":{"verdicts":[{}]}}`))
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"message","type":"PlanDirective","payload":{"blocked_tools":null}}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		// What decodes as an event is shown; the rest is the decoder's error.
		e, derr := trace.DecodeLine(raw)
		parsed := derr == nil
		for _, all := range []bool{false, true} {
			var b bytes.Buffer
			err := textview.NewTimeline(&b, all).Line(raw)
			if parsed != (err == nil) {
				t.Fatalf("%q: decoded %v, shown with error %v", raw, derr, err)
			}
			// An exchange or a message always has its line, whatever its content.
			if want := map[string]string{"exchange": "exchange  ", "message": "message   "}[e.Kind]; parsed && want != "" && !strings.Contains(b.String(), want) {
				t.Fatalf("%q: no %q line in %q", raw, want, b.String())
			}
		}
	})
}
