package runlog

import (
	"encoding/json"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

func TestModelUsage(t *testing.T) {
	resp := `{"model":"m-resp","content":"hi","usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3},"attempts":1}`
	for _, c := range []struct {
		name    string
		x       trace.Exchange
		in, out int
		model   string
	}{
		{"the response's usage", trace.Exchange{Name: "llm:R2", Request: json.RawMessage(`{"model":"m-req"}`), Response: json.RawMessage(resp)}, 1, 2, "m-resp"},
		{"the exchange's record wins", trace.Exchange{Name: "llm:R2", Request: json.RawMessage(`{"model":"m-req"}`), Response: json.RawMessage(resp),
			Usage: &contract.ModelUsage{PromptTokens: 10, CompletionTokens: 20}}, 10, 20, "m-resp"},
		{"no response: the request's model", trace.Exchange{Name: "llm:R2", Request: json.RawMessage(`{"model":"m-req"}`), Error: "down"}, 0, 0, "m-req"},
	} {
		m, ok := Model(c.x)
		if !ok || m.Role != "R2" || m.Usage.PromptTokens != c.in || m.Usage.CompletionTokens != c.out || m.ModelName() != c.model {
			t.Errorf("%s: %+v, ok %v", c.name, m, ok)
		}
	}
	if _, ok := Model(trace.Exchange{Name: "tool:shell"}); ok {
		t.Error("a tool exchange read as a model call")
	}
}

func TestToolExitCode(t *testing.T) {
	for _, c := range []struct {
		resp     string
		exit     *int
		answered bool
		result   string
	}{
		{`{"tool":"shell","target":"ls","output":"a\n","exit_code":2,"evidence":"shell:ls → a"}`, ptr(2), true, "a"},
		{`{"tool":"shell","target":"ls","output":"a\n","evidence":""}`, nil, true, "a\n"},
		{``, nil, false, ""},
		{`null`, nil, false, ""},
	} {
		tx, ok := Tool(trace.Exchange{Name: "tool:shell", Request: json.RawMessage(`{"id":"c1","arguments":"{}"}`), Response: json.RawMessage(c.resp)})
		if !ok || tx.Tool != "shell" || tx.Request.ID != "c1" || tx.Answered != c.answered || tx.Response.Result() != c.result {
			t.Errorf("%s: %+v", c.resp, tx)
		}
		if (tx.ExitCode == nil) != (c.exit == nil) || (c.exit != nil && *tx.ExitCode != *c.exit) {
			t.Errorf("%s: exit code %v, want %v", c.resp, tx.ExitCode, c.exit)
		}
	}
}

func TestPayload(t *testing.T) {
	m := trace.Message{From: "R2", To: "R3", Type: contract.TypeSubTask,
		Payload: json.RawMessage(`{"subtask_id":"s1","parent_task_id":"t","intent":"read","success_criteria":[],"context":"","deadline":null,"sequence":1,"tools":["read_file"],"targets":[]}`)}
	if a, ok := Payload(m).(*contract.Assignment); !ok || a.SubTaskID != "s1" || a.Tools[0] != "read_file" {
		t.Errorf("SubTask payload: %#v", Payload(m))
	}
	m.Payload = json.RawMessage(`{"subtask_id":"s1","unknown":1}`)
	if _, ok := Payload(m).(json.RawMessage); !ok {
		t.Errorf("a payload that is not its type's: %#v, want it raw", Payload(m))
	}
}

func TestCompareFixtures(t *testing.T) {
	all := fixtures(t)
	a, b := readFixture(t, all[0]), readFixture(t, all[1])
	if d := Compare(a, a); !d.Identical() {
		t.Errorf("%s against itself: %+v", all[0], d)
	}
	d := Compare(a, b)
	if d.Identical() || (d.Header == nil && d.Event == nil) {
		t.Errorf("%s against %s: no difference found", all[0], all[1])
	}
}

// FuzzExchanges reads arbitrary recorded requests and responses: decoding never panics.
func FuzzExchanges(f *testing.F) {
	f.Add("llm:R2", `{"model":"m"}`, `{"content":"x","usage":{"prompt_tokens":1},"attempt_log":[{"n":1,"status":429}]}`)
	f.Add("tool:shell", `{"id":"c"}`, `{"exit_code":1,"evidence":"shell:x → y"}`)
	f.Add("check:plan", `{"round":1}`, `{"violations":["v"]}`)
	f.Add("memory:calibrate", `{"tools":["a"]}`, `{"verdicts":[{"action":"avoid"}]}`)
	f.Fuzz(func(t *testing.T, name, req, resp string) {
		x := trace.Exchange{Name: name, Request: json.RawMessage(req), Response: json.RawMessage(resp)}
		if m, ok := Model(x); ok {
			_ = m.ModelName()
			for _, a := range m.Response.AttemptLog {
				_ = a.Cause()
			}
		}
		if tx, ok := Tool(x); ok {
			_ = tx.Response.Result()
		}
		PlanCheckOf(x)
		CalibrationOf(x)
		Payload(trace.Message{Type: name, Payload: json.RawMessage(resp)})
	})
}

func ptr(n int) *int { return &n }
