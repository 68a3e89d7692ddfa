package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestEndpointFaultAdvice runs `spine run` against an endpoint that refuses the key
// (401, 403), one that drops every connection, and a port nobody listens on. A refused
// key ends the run at once, after one call and no retried round, saying what to do about
// the key; every fault's next moves speak of the fault, not of criteria or budget; the
// endpoint's words are printed once; and the trace replays.
func TestEndpointFaultAdvice(t *testing.T) {
	modelEnvFromConfig(t, 1)
	t.Setenv("SPINE_TRACE_DIR", t.TempDir())
	deadPort := func(t *testing.T) string {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		url := "http://" + l.Addr().String() + "/v1"
		l.Close()
		return url
	}
	for _, c := range []struct {
		name     string
		url      func(t *testing.T) string
		reason   string
		calls    int    // R1's model calls in the trace
		words    string // what the endpoint said, to be printed once
		advice   string // the first next move begins with it
		retryRun bool   // the faulted round was run again
	}{
		{name: "401", reason: contract.FaultKeyRefused, calls: 1, words: "Incorrect API key provided",
			url: func(t *testing.T) string {
				return llmtest.NewFaultServer(t, llmtest.Fail(401, "Incorrect API key provided")).URL()
			},
			advice: "Set the key's variable"},
		{name: "403", reason: contract.FaultKeyRefused, calls: 1, words: "this key may not use the model",
			url: func(t *testing.T) string {
				return llmtest.NewFaultServer(t, llmtest.Fail(403, "this key may not use the model")).URL()
			},
			advice: "Set the key's variable"},
		{name: "dropped connections", reason: contract.FaultModelUnavailable, calls: 2, words: "EOF", retryRun: true,
			url: func(t *testing.T) string {
				return llmtest.NewFaultServer(t, llmtest.Dropped(), llmtest.Dropped()).URL()
			},
			advice: "Check that the model endpoint answers"},
		{name: "dead port", reason: contract.FaultModelUnavailable, calls: 2, words: "connection refused", retryRun: true,
			url: deadPort, advice: "Check that the model endpoint answers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			cfg := filepath.Join(dir, "models.yaml")
			writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m\ntimeout: 10s\n", c.url(t), fmKey))
			trace := filepath.Join(dir, "run.trace.jsonl")
			var out, errOut bytes.Buffer
			code := Run(context.Background(), []string{"run", "--config", cfg, "--workdir", work, "--trace", trace, fmTask},
				strings.NewReader(""), &out, &errOut)
			stdout := out.String()
			show := func() string { return "stdout:\n" + stdout + "stderr:\n" + errOut.String() }
			if code != exitFail {
				t.Fatalf("exit %d, want %d\n%s", code, exitFail, show())
			}
			if n := strings.Count(stdout, c.words); n != 1 {
				t.Errorf("the endpoint's words %q are printed %d times, want once\n%s", c.words, n, show())
			}
			if c.reason == contract.FaultKeyRefused && !strings.Contains(stdout, contract.KeyRefusedAdvice) {
				t.Errorf("stdout does not say %q\n%s", contract.KeyRefusedAdvice, show())
			}
			if strings.Contains(stdout, "retry →") != c.retryRun {
				t.Errorf("a round run again: %v, want %v\n%s", !c.retryRun, c.retryRun, show())
			}
			if !strings.Contains(stdout, "1. "+c.advice) {
				t.Errorf("the first next move is not %q…\n%s", c.advice, show())
			}
			for _, off := range []string{"budget", "failed criteria", "Next moves:"} {
				if strings.Contains(stdout, off) {
					t.Errorf("stdout says %q\n%s", off, show())
				}
			}
			recorded, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(recorded, []byte(`"reason":"`+c.reason+`"`)) {
				t.Errorf("the trace's FinalResult does not give the reason %s", c.reason)
			}
			if n := bytes.Count(recorded, []byte(`"kind":"exchange","name":"llm:R1"`)); n != c.calls {
				t.Errorf("%d R1 calls in the trace, want %d", n, c.calls)
			}
			var rout, rerr bytes.Buffer
			if code := Run(context.Background(), []string{"replay", "--check", trace}, nil, &rout, &rerr); code != exitOK ||
				!strings.Contains(rout.String(), "identical") {
				t.Errorf("replay --check: exit %d\n%s%s", code, rout.String(), rerr.String())
			}
		})
	}
}
