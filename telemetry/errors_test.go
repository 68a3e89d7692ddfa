package telemetry

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/telemetry/otlptest"
)

const pipelineTrace = "../fixtures/pipeline/change_path_then_accept.trace.jsonl"

// TestEndpointErrors: a refused connection, a 4xx and a 5xx are errors that name the
// endpoint and quote at most an excerpt of its answer.
func TestEndpointErrors(t *testing.T) {
	closed := otlptest.New()
	closedURL := closed.URL()
	closed.Close()
	huge := strings.Repeat("x", 100_000)
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   []string
	}{
		{"refused", 0, "", []string{" spans to http://127.0.0.1:", "/v1/traces: ", "connect: connection refused"}},
		{"unauthorized", http.StatusUnauthorized, "bad key", []string{"401 Unauthorized", "bad key"}},
		{"server error", http.StatusInternalServerError, huge, []string{"500 Internal Server Error", "xxx…"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := closedURL
			if tc.status != 0 {
				rcv := otlptest.New()
				defer rcv.Close()
				rcv.Fail(tc.status, tc.body)
				url = rcv.URL()
			}
			_, err := ExportFile(context.Background(), Endpoint{URL: url, NoRetry: true}, pipelineTrace, Options{}, nil)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if len(err.Error()) > 700 {
				t.Errorf("error is %d bytes long, want an excerpt", len(err.Error()))
			}
		})
	}
}

func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		in       string
		insecure bool
		want     string // the URL, or the error
	}{
		{"http://localhost:4318", false, "http://localhost:4318/v1/traces"},
		{"http://127.0.0.1:4318/", false, "http://127.0.0.1:4318/v1/traces"},
		{"http://[::1]:4318/v1/traces", false, "http://[::1]:4318/v1/traces"},
		{"https://cloud.langfuse.com/api/public/otel/v1/traces", false, "https://cloud.langfuse.com/api/public/otel/v1/traces"},
		{"http://tempo.internal:4318", true, "http://tempo.internal:4318/v1/traces"},
		{"http://tempo.internal:4318", false, `endpoint "http://tempo.internal:4318": plain http to another host sends the run in clear text; use https, or --insecure to allow it`},
		{"https://user:secret@example.com", false, "endpoint: credentials in the URL are refused; send them with --header (e.g. --header 'Authorization=Basic …')"},
		{"ftp://example.com", false, `endpoint "ftp://example.com": scheme must be http or https`},
		{"https://example.com/v1/traces?key=1", false, `endpoint "https://example.com/v1/traces?key=1": OTLP/HTTP takes no query or fragment`},
		{"localhost:4318", false, `endpoint "localhost:4318": want a URL such as http://localhost:4318 or https://otlp.example.com/v1/traces`},
		{"", false, `endpoint "": want a URL such as http://localhost:4318 or https://otlp.example.com/v1/traces`},
	} {
		u, err := ParseURL(tc.in, tc.insecure)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = u.String()
		}
		if got != tc.want {
			t.Errorf("ParseURL(%q, %v) = %s, want %s", tc.in, tc.insecure, got, tc.want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	for _, tc := range []struct{ in, key, val, err string }{
		{"Authorization=Bearer abc", "Authorization", "Bearer abc", ""},
		{"x-api-key=a=b", "x-api-key", "a=b", ""},
		{"x-empty=", "x-empty", "", ""},
		{"novalue", "", "", "header: want KEY=VALUE (the argument is not echoed: it may hold a secret)"},
		{"Authorization Bearer sk-1", "", "", "header: want KEY=VALUE (the argument is not echoed: it may hold a secret)"},
		{"=secret", "", "", `header "": want KEY=VALUE with a key of letters, digits and dashes`},
		{"bad key=secret", "", "", `header "bad key": want KEY=VALUE with a key of letters, digits and dashes`},
		{"k=line\nbreak", "", "", `header "k": its value has a line break`},
	} {
		k, v, err := ParseHeader(tc.in)
		gotErr := ""
		if err != nil {
			gotErr = err.Error()
		}
		if k != tc.key || v != tc.val || gotErr != tc.err {
			t.Errorf("ParseHeader(%q) = %q, %q, %q; want %q, %q, %q", tc.in, k, v, gotErr, tc.key, tc.val, tc.err)
		}
	}
}

// TestBadTraces: what is not a spine trace is an error naming the file, not spans.
func TestBadTraces(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, content, want string }{
		{"empty", "", "empty.jsonl: the file is empty; expected a spine trace"},
		{"headerless", `{"seq":1,"t":"2026-03-01T09:00:00Z","kind":"halt","run":"x","outcome":"success"}` + "\n",
			`headerless.jsonl:1: expected a spine trace: the first line must be a header with format spine-trace/2, not a "halt" event`},
		{"anonymous", `{"seq":1,"t":"2026-03-01T09:00:00Z","kind":"header","format":"spine-trace/2"}` + "\n",
			"anonymous.jsonl:1: header names no run"},
		{"badtime", `{"seq":1,"t":"yesterday","kind":"header","run":"r"}` + "\n",
			`badtime.jsonl:1: t "yesterday" is not an RFC 3339 time`},
		{"foreign", "hello\n", "foreign.jsonl:1: invalid JSON"},
	} {
		p := filepath.Join(dir, tc.name+".jsonl")
		if err := os.WriteFile(p, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Spans(p, Options{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestIncompleteRun: a trace cut before its halt still exports, its run marked so.
func TestIncompleteRun(t *testing.T) {
	raw, err := os.ReadFile(pipelineTrace)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(raw), "\n")
	p := filepath.Join(t.TempDir(), "cut.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines[:40], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	spans, err := Spans(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := spans[len(spans)-1]
	if root.Name() != "spine run" || root.Status().Description != "incomplete recording: the trace ends at line 40 without the run's halt event" {
		t.Errorf("last span %s with status %q, want the run marked incomplete", root.Name(), root.Status().Description)
	}
}

// FuzzSpans: no trace file, however damaged, makes the conversion panic. The seed is a
// small run with every kind the conversion reads (a fixture is too large to mutate
// quickly).
func FuzzSpans(f *testing.F) {
	f.Add(encodeTrace(f,
		trace.Header{Format: trace.Format, Run: "seed", Meta: map[string]string{"base_url": "http://127.0.0.1:9/v1"}},
		trace.Transition{From: "observe", To: "select_objective", Event: "observed", Iteration: 1},
		trace.RuleFired{Cycle: 1, Rule: "plan_first_round", Then: &trace.Then{Objective: "plan"}},
		trace.FactChange{Fact: trace.Fact{Kind: "objective", ID: "objective", Payload: json.RawMessage(`{"name":"plan","rule":"plan_first_round"}`)}},
		trace.Exchange{Name: "llm:R3", Request: json.RawMessage(`{"model":"m","messages":[{"role":"user","content":"go"}],"temperature":0}`),
			Response:   json.RawMessage(`{"model":"m","tool_calls":[{"id":"c1","name":"read_file","arguments":"{}"}],"finish_reason":"tool_calls","usage":{"prompt_tokens":3,"completion_tokens":1},"attempts":2,"attempt_log":[{"n":1,"status":429}]}`),
			DurationMS: 5},
		trace.Exchange{Name: "tool:read_file", Request: json.RawMessage(`{"id":"c1","arguments":"{}"}`),
			Response: json.RawMessage(`{"tool":"read_file","target":"a","output":"x","exit_code":1}`), DurationMS: 1},
		trace.Message{From: "R3", To: "R4a", Type: "ExecutionResult", Payload: json.RawMessage(`{}`)},
		trace.EffectorResult{Call: 1, Op: "mint", DurationMS: 9},
		trace.FactChange{Fact: trace.Fact{Kind: "signals", ID: "signals", Payload: json.RawMessage(`{"D":1,"all_matched":false}`)}},
		trace.Halt{Run: "seed", Outcome: "success", Objective: "accept", Iterations: 1},
		trace.Audit{Finding: contract.AuditReport{Kind: "k", Severity: "warning", Message: "m"}},
	))
	f.Add([]byte(`{"seq":1,"t":"2026-03-01T09:00:00Z","kind":"header","run":"r"}` + "\n" +
		`{"seq":2,"t":"2026-03-01T09:00:00Z","kind":"exchange","name":"llm:","request":1,"response":"x","duration_ms":-5}` + "\n"))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "t.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, _ = Spans(p, Options{})
	})
}

// TestBrokenChain: a trace edited after it was written still exports, with a warning
// and its run span saying where the chain breaks.
func TestBrokenChain(t *testing.T) {
	raw, err := os.ReadFile(pipelineTrace)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(raw), `"listen":8443`, `"listen":8444`, 1)
	if edited == string(raw) {
		t.Fatal("the fixture no longer has the value this test edits")
	}
	p := filepath.Join(t.TempDir(), "edited.jsonl")
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Read(p)
	if err != nil {
		t.Fatal(err)
	}
	w := Warnings(f)
	if len(w) != 1 || !strings.Contains(w[0], "hash chain broken at line 65") {
		t.Errorf("warnings %q, want one on the chain broken at line 65", w)
	}
	spans, err := Convert(f, Options{})
	if err != nil {
		t.Fatal(err)
	}
	root := spans[len(spans)-1]
	for _, a := range root.Attributes() {
		if a.Key == "spine.trace.chain" {
			if got := a.Value.AsString(); got != "broken at line 65" {
				t.Errorf("spine.trace.chain = %q, want broken at line 65", got)
			}
			return
		}
	}
	t.Errorf("run span %s has no spine.trace.chain", root.Name())
}

func TestServerAttrs(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:35183/v1", "server.address=127.0.0.1 server.port=35183"},
		{"https://user:secret@api.example.com/v1?key=k", "server.address=api.example.com server.port=443"},
		{"http://[::1]/v1", "server.address=::1 server.port=80"},
		{"", ""},
		{"not a url", ""},
	} {
		var parts []string
		for _, a := range serverAttrs(tc.in) {
			parts = append(parts, string(a.Key)+"="+a.Value.Emit())
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("serverAttrs(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestParseHeaders: none is nil; the arguments make one map, a later key winning; one bad
// argument is ParseHeader's error.
func TestParseHeaders(t *testing.T) {
	if hs, err := ParseHeaders(nil); hs != nil || err != nil {
		t.Errorf("no headers: %v, %v", hs, err)
	}
	hs, err := ParseHeaders([]string{"Authorization=Bearer a", "X-Scope=t1", "Authorization=Bearer b"})
	if err != nil || len(hs) != 2 || hs["Authorization"] != "Bearer b" || hs["X-Scope"] != "t1" {
		t.Errorf("headers: %v, %v", hs, err)
	}
	if _, err := ParseHeaders([]string{"X-Scope=t1", "Authorization Bearer sk"}); err == nil || strings.Contains(err.Error(), "sk") {
		t.Errorf("a bad header: %v", err)
	}
}
