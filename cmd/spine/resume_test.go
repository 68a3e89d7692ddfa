package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// resumeScript is a two-round task: R4b finds the merged result wanting in the first
// round, GGS has it planned again, and the second round is accepted.
var resumeScript = map[string][]llmtest.Reply{
	"m-R1": {fmPerceived}, "m-R2": {fmPlan, fmJSON(map[string]any{"task_criteria": []string{fmTaskCrit}, "subtasks": []map[string]any{{
		"intent": "Print config/app.yaml and report its port", "success_criteria": []string{fmCriterion}, "context": "",
		"sequence": 1, "tools": []string{"shell"}, "targets": []string{"cat config/app.yaml"}}}})},
	"m-R3":  {fmRead, fmDone, fmCall("s1", "shell", `{"command":"cat config/app.yaml"}`), fmDone},
	"m-R4a": {fmPassed, fmPassed},
	"m-R4b": {fmJSON(map[string]any{"summary": "no port found", "merged": "",
		"verdicts": []map[string]any{{"criterion": fmTaskCrit, "verdict": "fail", "failure_class": "logical", "evidence": "no port named"}}}), fmMerged},
}

// bodyEndpoint answers each model from its script by the request's body: the first new
// body gets the next reply, and a body asked again (a call in flight at a kill, made
// again by the resumed run) gets the answer it got before. It counts what was asked.
type bodyEndpoint struct {
	mu      sync.Mutex
	t       testing.TB
	next    map[string]int
	answers map[[32]byte]llmtest.Reply
	order   map[string][][32]byte // each model's distinct bodies, in the order first asked
	asked   [][32]byte            // every request, in order
	onAsk   func()
	keyOf   func(body []byte) []byte   // what of a body tells requests apart; nil: all of it
	script  map[string][]llmtest.Reply // each model's replies; nil: resumeScript
}

func newBodyEndpoint(t testing.TB) (*bodyEndpoint, string) {
	e := &bodyEndpoint{t: t, next: map[string]int{}, answers: map[[32]byte]llmtest.Reply{}, order: map[string][][32]byte{}}
	srv := httptest.NewServer(http.HandlerFunc(e.serve))
	t.Cleanup(srv.Close)
	return e, srv.URL + "/v1"
}

func (e *bodyEndpoint) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var chat struct {
		Model string `json:"model"`
	}
	if json.Unmarshal(body, &chat) != nil {
		http.Error(w, "not a chat request (a killed client's cut-off body)", http.StatusBadRequest)
		return
	}
	e.mu.Lock()
	key := sha256.Sum256(body)
	if e.keyOf != nil { // a fork's live part makes new ids: the same request all the same
		key = sha256.Sum256(e.keyOf(body))
	}
	rep, seen := e.answers[key]
	if !seen {
		script := resumeScript[chat.Model]
		if e.script != nil {
			script = e.script[chat.Model]
		}
		if e.next[chat.Model] >= len(script) {
			e.mu.Unlock()
			e.t.Errorf("model %s asked more than its script", chat.Model)
			http.Error(w, "no more replies", 500)
			return
		}
		rep = script[e.next[chat.Model]]
		e.next[chat.Model]++
		e.answers[key] = rep
		e.order[chat.Model] = append(e.order[chat.Model], key)
	}
	e.asked = append(e.asked, key)
	ask := e.onAsk
	e.mu.Unlock()
	if ask != nil {
		ask()
	}
	msg := map[string]any{"role": "assistant", "content": rep.Content}
	finish := "stop"
	if len(rep.ToolCalls) > 0 {
		var calls []map[string]any
		for _, tc := range rep.ToolCalls {
			calls = append(calls, map[string]any{"id": tc.ID, "type": "function", "function": map[string]string{"name": tc.Name, "arguments": tc.Arguments}})
		}
		msg["tool_calls"], msg["content"], finish = calls, nil, "tool_calls"
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"id": "c", "object": "chat.completion", "created": 1, "model": chat.Model,
		"choices": []map[string]any{{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]int{"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}})
}

// resumeRun is one spine run or resume process of the kill test.
type resumeRun struct {
	out     bytes.Buffer
	summary map[string]any
}

func resumeEnv(dir string) []string {
	return append(os.Environ(), "SPINE_LLM_MAX_ATTEMPTS=1", "SPINE_TRACE_DIR="+dir, "XDG_STATE_HOME="+filepath.Join(dir, "state"),
		"OPENAI_API_KEY=", "OPENAI_BASE_URL=", "SPINE_MODEL=", "SPINE_TIER=", "SPINE_LLM_TIMEOUT=")
}

// startRun runs spine run with --json; stop, when set, is asked after every line the
// run prints and every request the endpoint receives, and its answer is the signal
// to send (0: none yet).
func runUntil(t *testing.T, bin string, args []string, env []string, e *bodyEndpoint, stop func() syscall.Signal) (*exec.Cmd, error, []byte) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	pr, pw := io.Pipe()
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = pw, &stderr
	var once sync.Once
	// started is closed once Start has set cmd.Process: a request can reach the
	// endpoint's goroutine before Start returns.
	started := make(chan struct{})
	check := func() {
		if stop == nil {
			return
		}
		if sig := stop(); sig != 0 {
			<-started
			once.Do(func() {
				if cmd.Process != nil {
					_ = cmd.Process.Signal(sig)
				}
			})
		}
	}
	e.mu.Lock()
	e.onAsk = check
	e.mu.Unlock()
	startErr := cmd.Start()
	close(started)
	if startErr != nil {
		t.Fatal(startErr)
	}
	var out bytes.Buffer
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			out.Write(sc.Bytes())
			out.WriteByte('\n')
			check()
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	err := cmd.Wait()
	pw.Close()
	<-done
	e.mu.Lock()
	e.onAsk = nil
	e.mu.Unlock()
	return cmd, err, append(out.Bytes(), stderr.Bytes()...)
}

func lineCount(path string) int {
	b, _ := os.ReadFile(path)
	return bytes.Count(b, []byte("\n"))
}

// finalOf is the FinalResult's directive and output from a --json run's summary line.
func finalOf(out []byte) string {
	for _, line := range bytes.Split(out, []byte("\n")) {
		var s struct {
			Type  string `json:"type"`
			Final *struct {
				Directive string `json:"directive"`
				Output    any    `json:"output"`
			} `json:"final"`
		}
		if json.Unmarshal(line, &s) == nil && s.Type == "RunSummary" && s.Final != nil {
			b, _ := json.Marshal(s.Final)
			return string(b)
		}
	}
	return ""
}

// heldBy is what a resume starts from: the requests whose answer trace holds, each
// model's first ones in the order asked, and how many requests e was asked so far.
func (e *bodyEndpoint) heldBy(trace []byte) (answered map[[32]byte]bool, before int) {
	held := answeredIn(trace)
	e.mu.Lock()
	defer e.mu.Unlock()
	answered = map[[32]byte]bool{}
	for model, keys := range e.order {
		for _, key := range keys[:min(held[model], len(keys))] {
			answered[key] = true
		}
	}
	return answered, len(e.asked)
}

// askedSince is what e was asked after its first before requests, and how many of those
// are answered ones: asked again although the trace held the answer.
func (e *bodyEndpoint) askedSince(before int, answered map[[32]byte]bool) (after [][32]byte, reasked int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	after = e.asked[before:]
	for _, key := range after {
		if answered[key] {
			reasked++
		}
	}
	return after, reasked
}

// answeredIn is how many of each model's calls the trace holds answered.
func answeredIn(trace []byte) map[string]int {
	n := map[string]int{}
	for _, line := range bytes.Split(trace, []byte("\n")) {
		var x struct {
			Kind string `json:"kind"`
			Name string `json:"name"`
			Err  string `json:"error"`
		}
		if json.Unmarshal(line, &x) == nil && x.Kind == "exchange" && strings.HasPrefix(x.Name, "llm:") && x.Err == "" {
			n["m-"+strings.TrimPrefix(x.Name, "llm:")]++
		}
	}
	return n
}

// modelEnvFromConfig clears the environment's model settings, so that a test's
// configuration file alone says which endpoint and models a run uses, and lets each
// model call be tried attempts times.
func modelEnvFromConfig(t *testing.T, attempts int) {
	t.Setenv("SPINE_LLM_MAX_ATTEMPTS", strconv.Itoa(attempts))
	for _, v := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "SPINE_MODEL", "SPINE_TIER", "SPINE_LLM_TIMEOUT"} {
		t.Setenv(v, "")
	}
}

// resumeSetup makes a resume test's directory: a work dir with config/app.yaml, an
// endpoint answering from script (nil: resumeScript) and the model configuration that
// points each role at it.
func resumeSetup(t *testing.T, script map[string][]llmtest.Reply) (dir, work, cfg string, e *bodyEndpoint) {
	dir = t.TempDir()
	work = filepath.Join(dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 8080\n")
	e, url := newBodyEndpoint(t)
	e.script = script
	cfg = filepath.Join(dir, "models.yaml")
	writeFile(t, cfg, fmt.Sprintf("base_url: %s\napi_key: %s\nmodel: m-R3\ntimeout: 1m\nroles:\n"+
		"  R1: {model: m-R1, tier: 1}\n  R2: {model: m-R2, tier: 2}\n  R3: {model: m-R3, tier: 1}\n"+
		"  R4a: {model: m-R4a, tier: 1}\n  R4b: {model: m-R4b, tier: 2}\n", url, fmKey))
	return dir, work, cfg, e
}

// TestResumeAfterKill kills spine run (SIGKILL at 20 seeded moments, SIGINT at 5) as
// its trace reaches a seeded number of lines, resumes each, and checks that the resumed
// run ends as the uninterrupted one did, that the endpoint is asked nothing the trace
// holds the answer to, and that the resumed trace replays byte for byte.
func TestResumeAfterKill(t *testing.T) {
	bin, err := exec.LookPath("spine")
	if err != nil {
		t.Skip("no spine command on PATH:", err)
	}
	// The uninterrupted run.
	dir, work, cfg, e := resumeSetup(t, nil)
	full := filepath.Join(dir, "full.trace.jsonl")
	_, err, out := runUntil(t, bin, []string{"run", "--json", "--config", cfg, "--workdir", work, "--trace", full, fmTask}, resumeEnv(dir), e, nil)
	want := finalOf(out)
	if err != nil || want == "" || !strings.Contains(want, "accept") {
		t.Fatalf("the uninterrupted run: %v, final %s\n%s", err, want, out)
	}
	total, calls := lineCount(full), len(e.asked)
	t.Logf("uninterrupted: %d trace lines, %d model calls, final %s", total, calls, want)

	// A run that ended is said so, and nothing is called.
	asked := len(e.asked)
	_, err, out = runUntil(t, bin, []string{"resume", "--config", cfg, full}, resumeEnv(dir), e, nil)
	if err != nil || !bytes.Contains(out, []byte("the run already ended")) || len(e.asked) != asked {
		t.Errorf("resuming an ended run: %v, %d request(s)\n%s", err, len(e.asked)-asked, out)
	}
	// A torn last line is dropped, said so, and the run continues from the line before.
	fullData, _ := os.ReadFile(full)
	lines := bytes.SplitAfter(fullData, []byte("\n"))
	torn := filepath.Join(dir, "torn.trace.jsonl")
	writeFile(t, torn, string(bytes.Join(lines[:total/2], nil))+string(lines[total/2][:len(lines[total/2])/2]))
	// The endpoint goes on from the answers the kept lines hold.
	e.next, e.answers, e.order = answeredIn(bytes.Join(lines[:total/2], nil)), map[[32]byte]llmtest.Reply{}, map[string][][32]byte{}
	tornOut := filepath.Join(dir, "torn-resumed.trace.jsonl")
	_, err, out = runUntil(t, bin, []string{"resume", "--json", "--config", cfg, "--trace", tornOut, torn}, resumeEnv(dir), e, nil)
	if got := finalOf(out); err != nil || got != want || !bytes.Contains(out, []byte("dropped the torn last line")) {
		t.Errorf("resuming a torn trace: %v, final %s\n%s", err, got, out)
	}
	if b, err := exec.Command(bin, "replay", "--check", tornOut).CombinedOutput(); err != nil {
		t.Errorf("replay --check of the resumed torn trace: %v\n%s", err, b)
	}

	rng := rand.New(rand.NewPCG(27, 2))
	type kill struct {
		sig  syscall.Signal
		line int
	}
	var kills []kill
	for range 20 {
		kills = append(kills, kill{syscall.SIGKILL, 2 + rng.IntN(total-3)})
	}
	for range 5 {
		kills = append(kills, kill{syscall.SIGINT, 2 + rng.IntN(total-3)})
	}
	var mu sync.Mutex
	var reasked, inFlight, resumedCalls, killedCalls int
	for i, k := range kills {
		t.Run(fmt.Sprintf("%d-%s-at-line-%d", i, k.sig, k.line), func(t *testing.T) {
			dir, work, cfg, e := resumeSetup(t, nil)
			trace := filepath.Join(dir, "run.trace.jsonl")
			_, err, out := runUntil(t, bin, []string{"run", "--json", "--config", cfg, "--workdir", work, "--trace", trace, fmTask}, resumeEnv(dir), e,
				func() syscall.Signal {
					if lineCount(trace) >= k.line {
						return k.sig
					}
					return 0
				})
			if err == nil {
				t.Logf("the run ended before it was stopped")
			}
			if k.sig == syscall.SIGINT && !bytes.Contains(out, []byte("spine resume")) && !bytes.Contains(out, []byte(`"canceled":true`)) {
				t.Errorf("an interrupted run does not say how to resume it:\n%s", out)
			}
			recorded, _ := os.ReadFile(trace)
			answered, before := e.heldBy(recorded)

			resumed := filepath.Join(dir, "resumed.trace.jsonl")
			_, err, rout := runUntil(t, bin, []string{"resume", "--json", "--config", cfg, "--trace", resumed, trace}, resumeEnv(dir), e, nil)
			if got := finalOf(rout); err != nil && got == "" && !bytes.Contains(rout, []byte("already ended")) {
				t.Fatalf("resume: %v\n%s", err, rout)
			} else if got != "" && got != want {
				t.Errorf("the resumed run's final result %s, the uninterrupted run's %s", got, want)
			}
			after, n := e.askedSince(before, answered)
			e.mu.Lock()
			inflight := 0
			for _, key := range after {
				for _, k2 := range e.asked[:before] {
					if k2 == key && !answered[key] {
						inflight++
						break
					}
				}
			}
			e.mu.Unlock()
			if n != 0 {
				t.Errorf("the resumed run asked the endpoint %d request(s) whose answer the trace holds", n)
			}
			if _, err := os.Stat(resumed); err == nil {
				check := exec.Command(bin, "replay", "--check", resumed)
				if b, err := check.CombinedOutput(); err != nil {
					t.Errorf("replay --check of the resumed trace: %v\n%s", err, b)
				}
				rb, _ := os.ReadFile(resumed)
				at := bytes.Index(rb, []byte(`"kind":"resumed"`))
				if at < 0 {
					t.Fatalf("the resumed trace has no resumed line")
				}
				before := bytes.SplitAfter(rb[:bytes.LastIndexByte(rb[:at], '\n')+1], []byte("\n"))
				kept := bytes.SplitAfter(recorded, []byte("\n"))
				kept = kept[:len(kept)-1] // the empty tail, or a torn last line
				if n := min(len(before)-1, len(kept)); !bytes.Equal(bytes.Join(before[:n], nil), bytes.Join(kept[:n], nil)) {
					t.Errorf("the resumed trace's lines before its resumed line are not the recording's")
				}
			}
			mu.Lock()
			reasked += n
			inFlight += inflight
			killedCalls += before
			resumedCalls += len(after)
			mu.Unlock()
		})
	}
	t.Logf("%d interruptions: %d model calls before them, %d after resuming (an uninterrupted run makes %d); %d asked again that were in flight; %d asked again whose answer the trace held",
		len(kills), killedCalls, resumedCalls, calls, inFlight, reasked)
}
