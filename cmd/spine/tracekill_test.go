package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// TestKilledRunKeepsItsExchanges SIGKILLs a real `spine run` process as the endpoint
// receives its Nth model request, in the middle of the round, and checks that the trace
// holds every exchange made before: the N-1 model calls answered, and R3's tool call
// once R3 has made it. The chain verifies up to the last complete line.
func TestKilledRunKeepsItsExchanges(t *testing.T) {
	bin, err := exec.LookPath("spine") // the test binary, as TestMain installs it
	if err != nil {
		t.Skip("no spine command on PATH:", err)
	}
	// The round that goes well asks R1, R2, R3 (twice: the tool call, then its report),
	// R4a, R4b: requests 1–6. A case kills the run as one of them arrives.
	order := []string{"R1", "R2", "R3", "R3", "R4a", "R4b"}
	for n := 2; n <= len(order); n++ {
		t.Run(fmt.Sprintf("killed at request %d (%s)", n, order[n-1]), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 8080\n")
			var (
				mu     sync.Mutex
				cmd    *exec.Cmd
				killed = make(chan struct{})
			)
			kill := func() {
				mu.Lock()
				defer mu.Unlock()
				close(killed) // first: Wait may return as soon as the signal lands
				_ = cmd.Process.Kill()
			}
			scripts := map[string][]llmtest.Reply{}
			for i, role := range order {
				r := fmHappy[role][0]
				if i > 0 && order[i-1] == role {
					r = fmHappy[role][1]
				}
				if i == n-1 {
					r = llmtest.Reply{Begin: kill, Stall: time10m, Content: "never sent: the run is killed first"}
				}
				if i < n {
					scripts["m-"+role] = append(scripts["m-"+role], r)
				}
			}
			router := llmtest.NewRouter(t, scripts)
			cfg := filepath.Join(dir, "models.yaml")
			writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: 10m\nroles:\n"+
				"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
				"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", router.URL(), fmKey))
			trace := filepath.Join(dir, "run.trace.jsonl")
			var out bytes.Buffer
			mu.Lock()
			cmd = exec.Command(bin, "run", "--config", cfg, "--workdir", work, "--trace", trace, fmTask)
			cmd.Env = append(os.Environ(), "SPINE_LLM_MAX_ATTEMPTS=1", "SPINE_TRACE_DIR="+dir,
				"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "SPINE_MODEL=", "SPINE_TIER=", "SPINE_LLM_TIMEOUT=")
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				mu.Unlock()
				t.Fatal(err)
			}
			mu.Unlock()
			err := cmd.Wait()
			select {
			case <-killed:
			default:
				t.Fatalf("the run ended before request %d: %v\n%s", n, err, out.String())
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != -1 {
				t.Fatalf("the run was not killed: %v\n%s", err, out.String())
			}

			b, err := os.ReadFile(trace)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := spinetrace.VerifyChain(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("the chain of the killed run's trace: %v", err)
			}
			var models []string
			tools := 0
			for _, line := range strings.SplitAfter(string(b), "\n")[:rep.Lines] {
				var e struct {
					Kind string `json:"kind"`
					Name string `json:"name"`
				}
				if err := json.Unmarshal([]byte(line), &e); err != nil {
					t.Fatalf("line %q: %v", line, err)
				}
				switch {
				case e.Kind != spinetrace.KindExchange:
				case strings.HasPrefix(e.Name, "llm:"):
					models = append(models, strings.TrimPrefix(e.Name, "llm:"))
				case strings.HasPrefix(e.Name, "tool:"):
					tools++
				}
			}
			if want := order[:n-1]; strings.Join(models, " ") != strings.Join(want, " ") {
				t.Errorf("model exchanges in the trace: %v, want the %d answered before the kill: %v\n%s", models, n-1, want, b)
			}
			if wantTools := min(max(n-3, 0), 1); tools != wantTools {
				t.Errorf("tool exchanges in the trace: %d, want %d\n%s", tools, wantTools, b)
			}
		})
	}
}

const time10m = 10 * 60 * 1e9
