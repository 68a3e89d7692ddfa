package telemetry

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// writeTrace writes events through package trace's own writer (chained) to a file.
func writeTrace(t *testing.T, bodies ...any) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "synthetic.trace.jsonl")
	if err := os.WriteFile(p, encodeTrace(t, bodies...), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// encodeTrace encodes events with package trace's own writer (chained), seq and time
// counted from 1 and 09:00:00 in steps of one millisecond.
func encodeTrace(t testing.TB, bodies ...any) []byte {
	t.Helper()
	var sink trace.MemorySink
	t0 := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i, b := range bodies {
		kind := ""
		switch b.(type) {
		case trace.Header:
			kind = trace.KindHeader
		case trace.Transition:
			kind = trace.KindTransition
		case trace.RuleError:
			kind = trace.KindRuleError
		case trace.Reload:
			kind = trace.KindRulesReloaded
		case trace.Message:
			kind = trace.KindMessage
		case trace.Exchange:
			kind = trace.KindExchange
		case trace.Halt:
			kind = trace.KindHalt
		case trace.Audit:
			kind = trace.KindAudit
		case trace.FactChange:
			kind = trace.KindFactUpdated
		case trace.RuleFired:
			kind = trace.KindRuleFired
		case trace.EffectorResult:
			kind = trace.KindEffectorResult
		default:
			t.Fatalf("writeTrace: no kind for %T", b)
		}
		e := trace.Event{Seq: int64(i + 1), Time: t0.Add(time.Duration(i) * time.Millisecond), Kind: kind, Body: b}
		if err := sink.Write(&e); err != nil {
			t.Fatal(err)
		}
	}
	return sink.Bytes()
}

// TestEventsOfTheRun: a reload and a rule error land on their round, the Auditor's
// findings after the halt on the run, and a failed model call is an error with its
// error.type.
func TestEventsOfTheRun(t *testing.T) {
	p := writeTrace(t,
		trace.Header{Format: trace.Format, Run: "synthetic", Rules: trace.RulesRef{Name: "ggs", Hash: "sha256:aa"}},
		trace.Transition{From: "observe", To: "select_objective", Event: "observed", Iteration: 1},
		trace.Reload{Path: "my-ggs.yaml", Hash: "sha256:bb"},
		trace.RuleError{Cycle: 1, Rule: "r", Errors: []string{"no fact x"}},
		trace.Exchange{Name: "llm:R2", Request: json.RawMessage(`{"model":"m"}`),
			Response: json.RawMessage(`{"attempts":2,"attempt_log":[{"n":1,"kind":"timeout"},{"n":2,"kind":"timeout"}]}`),
			Error:    "model_unavailable: timeout", DurationMS: 3},
		trace.Halt{Run: "synthetic", Outcome: "error", Objective: "plan", Iterations: 1, Reason: "effector failed"},
		trace.Audit{Finding: contract.AuditReport{Kind: "budget_overrun", Severity: "error", Message: "over", Evidence: []int64{5}}},
	)
	spans, err := Spans(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range spans {
		var b strings.Builder
		b.WriteString(s.Status().Code.String() + " " + s.Status().Description)
		for _, a := range s.Attributes() {
			if a.Key == "error.type" || a.Key == "spine.outcome" {
				b.WriteString(" " + string(a.Key) + "=" + a.Value.Emit())
			}
		}
		for _, e := range s.Events() {
			b.WriteString(" · " + e.Name)
		}
		got[s.Name()] = b.String()
	}
	want := map[string]string{
		"spine run":       "Error error: effector failed spine.outcome=error · spine.audit",
		"round 1":         "Unset  · spine.transition · spine.rules_reloaded · spine.rule_error",
		"invoke_agent R2": "Unset ",
		"chat m":          "Error model_unavailable: timeout error.type=timeout",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("%s: %q, want %q", name, got[name], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("spans %v, want %d", got, len(want))
	}
}

// TestMessagesOnly: a trace of bus messages with no loop is not an incomplete run.
func TestMessagesOnly(t *testing.T) {
	p := writeTrace(t,
		trace.Header{Format: trace.Format, Run: "bus"},
		trace.Message{From: "R1", To: "R2", Type: "TaskSpec", Payload: json.RawMessage(`{}`)},
		trace.Message{From: "R2", To: "R3", Type: "SubTask", Payload: json.RawMessage(`{}`)},
	)
	spans, err := Spans(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range spans {
		names = append(names, s.Name()+":"+s.Status().Code.String())
	}
	if got, want := strings.Join(names, " "), "invoke_agent R1:Unset invoke_agent R2:Unset spine run:Unset"; got != want {
		t.Errorf("spans %s, want %s", got, want)
	}
}
