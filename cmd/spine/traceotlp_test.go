package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/agentspine/spine/telemetry"
	"github.com/agentspine/spine/telemetry/otlptest"
)

const (
	otlpPipeline = "../../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	otlpAccept   = "../../fixtures/ggs/accept.trace.jsonl"
)

// TestTraceOTLP sends two fixtures to an in-process receiver: one request each, every
// span in its run's trace, a line on stdout per trace, the header at the endpoint and
// nowhere else.
func TestTraceOTLP(t *testing.T) {
	rcv := otlptest.New()
	defer rcv.Close()
	code, out, errs := runSpine(t, "trace", "otlp", "--endpoint", rcv.URL(), "--gzip", "--content",
		"--header", "Authorization=Bearer sk-cli-7d1e", otlpPipeline, otlpAccept)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	reqs := rcv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, run := range []string{"pipeline_change_path_then_accept", "ggs_accept"} {
		tid := telemetry.TraceID(run)
		n := 0
		for _, rs := range reqs[i].Payload.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					n++
					if !bytes.Equal(s.TraceId, tid[:]) {
						t.Errorf("request %d: span %s in trace %x, want %s", i, s.Name, s.TraceId, tid)
					}
				}
			}
		}
		if got := reqs[i].Header.Get("Authorization"); got != "Bearer sk-cli-7d1e" || !reqs[i].Gzip {
			t.Errorf("request %d: Authorization %q, gzip %v", i, got, reqs[i].Gzip)
		}
		want := []string{otlpPipeline, otlpAccept}[i] + ": " + strconv.Itoa(n) + " spans sent, trace id " + tid.String() + "\n"
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	content := 0
	for _, s := range rcv.Spans() {
		for _, a := range s.Attributes {
			if a.Key == "gen_ai.input.messages" {
				content++
			}
		}
	}
	raw, err := os.ReadFile(otlpPipeline)
	if err != nil {
		t.Fatal(err)
	}
	if calls := bytes.Count(raw, []byte(`"kind":"exchange","name":"llm:`)); content != calls || calls == 0 {
		t.Errorf("%d spans with gen_ai.input.messages under --content, want one per model call (%d)", content, calls)
	}
	if errs != "" || strings.Contains(out, "sk-cli") {
		t.Errorf("stderr %q; stdout %q: want no stderr and no header value", errs, out)
	}
}

// TestTraceOTLPFailures: an endpoint that refuses, or answers 4xx or 5xx, is exit 1 with
// the reason on stderr, the trace file untouched, and the other traces still sent.
func TestTraceOTLPFailures(t *testing.T) {
	before, err := os.ReadFile(otlpPipeline)
	if err != nil {
		t.Fatal(err)
	}
	closed := otlptest.New()
	closedURL := closed.URL()
	closed.Close()
	for _, tc := range []struct {
		name   string
		status int
		want   string
	}{
		{"refused", 0, "connect: connection refused"},
		{"forbidden", http.StatusForbidden, "403 Forbidden (body: no such project)"},
		{"server error", http.StatusInternalServerError, "500 Internal Server Error (body: no such project)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := closedURL
			if tc.status != 0 {
				rcv := otlptest.New()
				defer rcv.Close()
				rcv.Fail(tc.status, "no such project")
				url = rcv.URL()
			}
			code, out, errs := runSpine(t, "trace", "otlp", "--endpoint", url, otlpPipeline)
			if code != exitFail {
				t.Errorf("exit %d, want 1", code)
			}
			if !strings.HasPrefix(errs, "spine trace otlp: "+otlpPipeline+": sending ") ||
				!strings.Contains(errs, " spans to "+url+"/v1/traces: ") || !strings.Contains(errs, tc.want) {
				t.Errorf("stderr %q, want the trace, the endpoint and %q", errs, tc.want)
			}
			if out != "" {
				t.Errorf("stdout %q, want nothing", out)
			}
		})
	}
	after, err := os.ReadFile(otlpPipeline)
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the trace file changed (%v)", err)
	}

	// A trace that cannot be read does not stop the next one.
	rcv := otlptest.New()
	defer rcv.Close()
	code, out, errs := runSpine(t, "trace", "otlp", "--endpoint", rcv.URL(), "no-such.trace.jsonl", otlpAccept)
	if code != exitFail || !strings.Contains(errs, "no-such.trace.jsonl") || !strings.Contains(out, otlpAccept+": ") || len(rcv.Requests()) != 1 {
		t.Errorf("exit %d, stdout %q, stderr %q, %d requests; want 1, the second trace sent, the first named", code, out, errs, len(rcv.Requests()))
	}
}

// TestTraceOTLPUsage: a wrong command line is exit 2, said on stderr, nothing sent; a
// header's value is never echoed.
func TestTraceOTLPUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{otlpAccept}, "spine trace otlp: --endpoint URL is required\n"},
		{[]string{"--endpoint", "http://localhost:4318"}, "spine trace otlp: requires at least 1 arg(s), only received 0\n"},
		{[]string{"--endpoint", "localhost:4318", otlpAccept}, `spine trace otlp: --endpoint: endpoint "localhost:4318": want a URL such as http://localhost:4318 or https://otlp.example.com/v1/traces` + "\n"},
		{[]string{"--endpoint", "http://tempo.internal:4318", otlpAccept}, `spine trace otlp: --endpoint: endpoint "http://tempo.internal:4318": plain http to another host sends the run in clear text; use https, or --insecure to allow it` + "\n"},
		{[]string{"--endpoint", "https://u:pw@example.com", otlpAccept}, "spine trace otlp: --endpoint: endpoint: credentials in the URL are refused; send them with --header (e.g. --header 'Authorization=Basic …')\n"},
		{[]string{"--endpoint", "http://localhost:4318", "--header", "Authorization Bearer sk-secret", otlpAccept}, "spine trace otlp: --header: header: want KEY=VALUE (the argument is not echoed: it may hold a secret)\n"},
		{[]string{"--endpoint", "http://localhost:4318", "--timeout", "0s", otlpAccept}, "spine trace otlp: --timeout 0s: expected a positive duration\n"},
	} {
		code, out, errs := runSpine(t, append([]string{"trace", "otlp"}, tc.args...)...)
		if code != exitUsage || !strings.HasPrefix(errs, tc.want) || out != "" || strings.Contains(errs, "sk-secret") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errs, tc.want)
		}
	}
}

// TestRunOTLP: spine run --otlp sends the run's trace once the run has ended, the same
// spans spine trace otlp sends for the file; an endpoint that fails makes the exit
// status 1 and keeps the trace.
func TestRunOTLP(t *testing.T) {
	rcv := otlptest.New()
	defer rcv.Close()
	ar := newAcceptRun(t, nil)
	out, _ := ar.run(t, "--otlp", rcv.URL())
	if !strings.Contains(out, ar.trace+": ") || !strings.Contains(out, " spans sent, trace id ") {
		t.Errorf("stdout does not say the trace was sent:\n%s", out)
	}
	if code, o, e := runSpine(t, "trace", "otlp", "--endpoint", rcv.URL(), ar.trace); code != exitOK {
		t.Fatalf("trace otlp: exit %d\n%s%s", code, o, e)
	}
	reqs := rcv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if !proto.Equal(reqs[0].Payload, reqs[1].Payload) {
		t.Error("spine run --otlp and spine trace otlp sent different spans for one trace")
	}
	names := map[string]bool{}
	for _, s := range rcv.Spans() {
		names[s.Name] = true
	}
	for _, want := range []string{"spine run", "round 1", "invoke_agent R3", "chat m-r3", "execute_tool read_file"} {
		if !names[want] {
			t.Errorf("no span %q among %v", want, names)
		}
	}

	failing := newAcceptRun(t, nil)
	rcv.Fail(http.StatusUnauthorized, "bad token")
	var stdout, stderr bytes.Buffer
	code := Run(context.Background(), []string{"run", "--config", failing.cfg, "--workdir", filepath.Join(failing.dir, "work"),
		"--trace", failing.trace, "--otlp", rcv.URL(), "What port does the app use?"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitFail {
		t.Errorf("exit %d with a failing endpoint, want 1", code)
	}
	if !strings.Contains(stderr.String(), "spine run: --otlp: "+failing.trace+": sending ") ||
		!strings.Contains(stderr.String(), "401 Unauthorized (body: bad token)") ||
		!strings.Contains(stderr.String(), "the trace is kept; send it later with: spine trace otlp --endpoint "+rcv.URL()+" "+failing.trace) {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if code, o, e := runSpine(t, "replay", "--check", failing.trace); code != exitOK {
		t.Errorf("the kept trace does not replay: exit %d\n%s%s", code, o, e)
	}

	if code, _, errs := runSpine(t, "run", "--otlp", "http://collector.example:4318", "task"); code != exitUsage ||
		!strings.Contains(errs, "spine run: --otlp: endpoint \"http://collector.example:4318\": plain http to another host") {
		t.Errorf("plain http to another host: exit %d, stderr %q; want 2 and why", code, errs)
	}
}
