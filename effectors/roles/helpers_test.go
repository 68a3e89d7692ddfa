package roles

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// testKey is the API key of every test client; no trace may contain it.
const testKey = "sk-spine-test-7f3c2a91d0e84b56"

// epoch is the first reading of the tests' step clocks.
var epoch = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// rig is a pipeline wired to one scripted OpenAI-compatible server per role, so that
// go-openai runs for real over HTTP and each role's answers are scripted on their own.
type rig struct {
	t      *testing.T
	srv    map[llm.RoleName]*llmtest.Server
	dir    string
	cfg    Config
	clock  clock.Clock
	rs     *ruleset.RuleSet
	taskID string
}

type rigOption func(*rig, *llm.OpenAIOptions)

// withTimeout sets the per-call timeout of every client.
func withTimeout(d time.Duration) rigOption {
	return func(_ *rig, o *llm.OpenAIOptions) { o.Timeout = d }
}

func newRig(t *testing.T, opts ...rigOption) *rig {
	t.Helper()
	r := &rig{t: t, srv: map[llm.RoleName]*llmtest.Server{}, dir: t.TempDir(), taskID: "task-1"}
	models := Models{}
	for _, role := range llm.Roles {
		s := llmtest.NewServer(t)
		o := llm.OpenAIOptions{BaseURL: s.URL(), APIKey: testKey, Timeout: 5 * time.Second, MaxAttempts: 3,
			Sleep: func(context.Context, time.Duration) error { return nil }, Jitter: zeroJitter{}}
		for _, opt := range opts {
			opt(r, &o)
		}
		m, err := llm.NewOpenAIModel(o)
		if err != nil {
			t.Fatal(err)
		}
		r.srv[role] = s
		models[role] = Model{Chat: m, Name: "model-" + strings.ToLower(string(role))}
	}
	box, err := sandbox.New(r.dir, sandbox.Options{Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { box.Close() })
	r.clock = clock.NewStep(epoch, time.Second)
	r.cfg = Config{Models: models, Tools: box, Clock: r.clock, IDs: &engine.SeqIDs{Prefix: "sub"}, RetryBudget: -1}
	if r.rs, err = engine.LoadRulesFS(rules.FS, "ggs.yaml"); err != nil {
		t.Fatal(err)
	}
	return r
}

type zeroJitter struct{}

func (zeroJitter) Float64() float64 { return 0 }

// file writes a file into the working directory.
func (r *rig) file(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// script queues replies for a role.
func (r *rig) script(role llm.RoleName, replies ...llmtest.Reply) { r.srv[role].Push(replies...) }

// requests returns the requests a role's server received.
func (r *rig) requests(role llm.RoleName) []llmtest.Request { return r.srv[role].Requests() }

// outcome of a run: the task result, its trace and the messages journalled.
type run struct {
	res   ggsrun.TaskResult
	err   error
	trace []byte
	p     *Pipeline
}

// run perceives and runs raw with a deterministic engine clock, then checks that every
// scripted reply was used and that the trace replays byte for byte.
func (r *rig) run(ctx context.Context, raw string) run {
	r.t.Helper()
	p, err := New(r.cfg)
	if err != nil {
		r.t.Fatal(err)
	}
	out := run{p: p}
	if err := p.Begin(r.taskID, raw); err != nil {
		out.err = err
		return out
	}
	sink := &spinetrace.MemorySink{}
	out.res, out.err = runTask(ctx, p, r.rs, map[string]string{"test": r.t.Name()},
		engine.WithTrace(sink), engine.WithClock(clock.NewStep(epoch, time.Millisecond)), engine.WithRunID("run-test"))
	out.trace = sink.Bytes()
	for role, s := range r.srv {
		if n := s.Pending(); n > 0 && ctx.Err() == nil {
			r.t.Errorf("%s: %d scripted repl(ies) not used", role, n)
		}
	}
	tracetest.AssertReplays(r.t, out.trace, r.rs)
	assertAudited(r.t, out.trace)
	if bytes.Contains(out.trace, []byte(testKey)) {
		r.t.Errorf("the API key is in the trace")
	}
	return out
}

// assertAudited runs the Auditor (R6) over a live trace: no role may break its contract
// on the bus (a message outside its routes, R4b's model after a failed subtask), no
// subtask ID may repeat and every message must be readable. Other findings are about
// the task's course, not the pipeline's correctness, and are only logged.
func assertAudited(t testing.TB, trace []byte) {
	t.Helper()
	tf, err := spinetrace.Read("live", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	res, err := audit.AuditTrace(audit.DefaultConfig(), "live", tf)
	if err != nil {
		t.Fatalf("audit: %v", err)
	}
	for _, f := range res.Findings {
		switch f.Kind {
		case audit.KindBoundaryViolation, audit.KindDuplicateSubtaskIDs, audit.KindMalformedMessage:
			t.Errorf("Auditor: %s: %s (seq %v)", f.Kind, f.Message, f.Evidence)
		default:
			t.Logf("Auditor: %s: %s", f.Kind, f.Message)
		}
	}
}

// messages returns the payloads of the trace's message events of one type.
func messages(t testing.TB, trace []byte, typ string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, e := range readEvents(t, trace) {
		if m, ok := spinetrace.As[spinetrace.Message](&e); ok && m.Type == typ {
			out = append(out, m.Payload)
		}
	}
	return out
}

// exchanges returns the trace's exchange events with a name.
func exchanges(t testing.TB, trace []byte, name string) []spinetrace.Exchange {
	t.Helper()
	var out []spinetrace.Exchange
	for _, e := range readEvents(t, trace) {
		if x, ok := spinetrace.As[spinetrace.Exchange](&e); ok && x.Name == name {
			out = append(out, x)
		}
	}
	return out
}

func readEvents(t testing.TB, trace []byte) []spinetrace.Event {
	t.Helper()
	f, err := spinetrace.Read("trace", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	return f.Events
}

// Scripted answers, by role.

func jsonText(v any) llmtest.Reply {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return llmtest.Text(string(b))
}

func perceived(intent string) llmtest.Reply {
	return jsonText(map[string]any{"intent": intent, "constraints": map[string]any{"scope": nil, "deadline": nil}, "questions": []string{}})
}

type sub struct {
	Intent   string   `json:"intent"`
	Criteria []string `json:"success_criteria"`
	Context  string   `json:"context"`
	Sequence int      `json:"sequence"`
	Tools    []string `json:"tools"`
	Targets  []string `json:"targets"`
	Deadline *string  `json:"deadline,omitempty"`
}

func planned(criteria []string, subs ...sub) llmtest.Reply {
	return jsonText(map[string]any{"task_criteria": criteria, "subtasks": subs})
}

func toolCall(id, name, args string) llmtest.Reply {
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: id, Name: name, Arguments: args}}, PromptTokens: 40, CompletionTokens: 8}
}

func done(status string, output any) llmtest.Reply {
	return jsonText(map[string]any{"status": status, "output": output})
}

func verdict(criterion, v, class, evidence string) map[string]any {
	var c any
	if class != "" {
		c = class
	}
	return map[string]any{"criterion": criterion, "verdict": v, "failure_class": c, "evidence": evidence}
}

func judged(whatToDo string, verdicts ...map[string]any) llmtest.Reply {
	return jsonText(map[string]any{"verdicts": verdicts, "what_to_do": whatToDo})
}

func merged(summary string, output any, verdicts ...map[string]any) llmtest.Reply {
	return jsonText(map[string]any{"summary": summary, "merged": output, "verdicts": verdicts})
}

// finalDirective is the directive of the run's FinalResult.
func finalDirective(r run) string {
	if r.res.Final == nil {
		return "(none)"
	}
	return r.res.Final.Directive
}

func decode[T any](t testing.TB, raw json.RawMessage) T {
	t.Helper()
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// runTask runs the task p was given (Begin) as taskrun does: through ggsrun, GGS
// steering the pipeline, with the task's fields in the trace header.
func runTask(ctx context.Context, p *Pipeline, rs *ruleset.RuleSet, meta map[string]string, opts ...engine.Option) (ggsrun.TaskResult, error) {
	meta["task_id"], meta["raw_input"] = p.Task().TaskID, p.Task().RawInput
	run, err := ggsrun.New(ggsrun.Config{Rules: rs, Plant: p, Task: p.Task(), Engine: opts, Meta: meta})
	if err != nil {
		return ggsrun.TaskResult{Task: p.Task()}, err
	}
	return run.Run(ctx)
}
