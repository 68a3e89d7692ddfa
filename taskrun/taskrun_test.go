package taskrun

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/engine"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

var epoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

func reply(v any) llmtest.Reply {
	b, _ := json.Marshal(v)
	return llmtest.Text(string(b))
}

// rig is one task against one scripted endpoint that answers every role in call order
// (the task has one subtask, so the order is fixed), with a deterministic clock and ids.
type rig struct {
	dir, work string
	srv       *llmtest.Server
	cfg       Config
}

func newRig(t *testing.T) *rig {
	t.Helper()
	r := &rig{dir: t.TempDir(), srv: llmtest.NewServer(t)}
	r.work = filepath.Join(r.dir, "work")
	if err := os.MkdirAll(filepath.Join(r.work, "config"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.work, "config", "app.yaml"), []byte("port: 8080\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{llm.EnvMaxAttempts: "1"}
	cfg, err := llm.LoadConfig(llm.Sources{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		Flags: llm.Overrides{BaseURL: r.srv.URL(), Model: "m"}})
	if err != nil {
		t.Fatal(err)
	}
	jail, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	r.cfg = Config{Task: "What port does the app use?", Workdir: r.work, LLM: cfg, Jail: jail,
		TraceDir: filepath.Join(r.dir, "traces"), Clock: clock.NewStep(epoch, time.Millisecond),
		IDs: &engine.SeqIDs{Prefix: "id"}, RunID: "run-test", Environ: []string{}}
	return r
}

const criterion, taskCriterion = "the port is read from config/app.yaml", "the answer names the port"

func (r *rig) scriptAccept() {
	r.srv.Push(
		reply(map[string]any{"intent": "Report the port the app listens on",
			"constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}}),
		reply(map[string]any{"task_criteria": []string{taskCriterion}, "subtasks": []map[string]any{{
			"intent": "Read config/app.yaml and report its port", "success_criteria": []string{criterion}, "context": "",
			"sequence": 1, "tools": []string{"read_file"}, "targets": []string{"config/app.yaml"}}}}),
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"config/app.yaml"}`}}},
		reply(map[string]any{"status": "completed", "output": "port: 8080"}),
		reply(map[string]any{"what_to_do": "", "verdicts": []map[string]any{
			{"criterion": criterion, "verdict": "pass", "failure_class": nil, "evidence": "port: 8080"}}}),
		reply(map[string]any{"summary": "The app listens on port 8080", "merged": "8080",
			"verdicts": []map[string]any{{"criterion": taskCriterion, "verdict": "pass", "failure_class": nil, "evidence": "8080"}}}))
}

// TestRunTaskAccepts drives the library directly: the task is accepted, the trace is
// where TraceDir says, verifies, replays byte for byte, and the header records the run.
func TestRunTaskAccepts(t *testing.T) {
	r := newRig(t)
	r.scriptAccept()
	var msgs []string
	r.cfg.OnMessage = func(m spinetrace.Message) { msgs = append(msgs, m.From+"→"+m.To+" "+m.Type) }
	res, err := RunTask(context.Background(), r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Final == nil || res.Final.Directive != contract.DirectiveAccept || len(res.Findings) != 0 {
		t.Fatalf("final %+v, findings %+v", res.Final, res.Findings)
	}
	if want := filepath.Join(r.dir, "traces", "spine-run-test.trace.jsonl"); res.TracePath != want {
		t.Errorf("trace at %s, want %s", res.TracePath, want)
	}
	trace, err := os.ReadFile(res.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := spinetrace.VerifyChain(bytes.NewReader(trace))
	if err != nil || !strings.HasSuffix(strings.TrimSpace(string(trace)), `"h":"`+res.TraceHead+`"}`) {
		t.Errorf("chain: %+v, %v; head %s", rep, err, res.TraceHead)
	}
	rs, err := LoadRules("")
	if err != nil {
		t.Fatal(err)
	}
	tracetest.AssertReplays(t, trace, rs)
	if !bytes.Contains(trace, []byte(`"sandbox":"bubblewrap`)) || !bytes.Contains(trace, []byte(`"raw_input":"What port does the app use?"`)) {
		t.Errorf("header: %.400s", trace)
	}
	if got := strings.Join(msgs, ", "); !strings.HasPrefix(got, "R1→R2 TaskSpec, R2→R3 SubTask") || !strings.HasSuffix(got, "R7→User FinalResult") {
		t.Errorf("messages: %s", got)
	}
}

// TestRunTaskEndsByRuleWhenR1IsDown: R1's endpoint never answers. The trace exists from
// before R1's first request; the rules retry once, then abandon with the fault's kind.
func TestRunTaskEndsByRuleWhenR1IsDown(t *testing.T) {
	r := newRig(t)
	down := llmtest.Reply{Status: 503, ErrorMessage: "overloaded"}
	r.srv.Push(down, down)
	res, err := RunTask(context.Background(), r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Final == nil || res.Final.Directive != contract.DirectiveAbandon || res.Final.Reason != contract.FaultModelUnavailable {
		t.Fatalf("final = %+v", res.Final)
	}
	trace, err := os.ReadFile(res.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(trace, []byte(`{"seq":1,`)) || !bytes.Contains(trace, []byte(`"kind":"halt"`)) {
		t.Errorf("trace:\n%.300s", trace)
	}
	rs, _ := LoadRules("")
	tracetest.AssertReplays(t, trace, rs)
}

// TestRunTaskRefusesBeforeAnyCall: the spine's own files inside the work dir are refused
// before any model is contacted, and no trace is made.
func TestRunTaskRefusesBeforeAnyCall(t *testing.T) {
	r := newRig(t)
	r.cfg.TracePath = filepath.Join(r.work, "t.jsonl")
	res, err := RunTask(context.Background(), r.cfg)
	if err == nil || !strings.Contains(err.Error(), "--trace") || res.TracePath != "" {
		t.Fatalf("RunTask = %+v, %v", res, err)
	}
	if n := len(r.srv.Requests()); n != 0 {
		t.Errorf("%d model requests before the refusal", n)
	}
	if _, err := os.Stat(r.cfg.TracePath); err == nil {
		t.Error("a trace was made")
	}
}
