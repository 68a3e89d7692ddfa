package telemetry

import (
	"encoding/json"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// bySeq returns the span of the call journalled at seq.
func bySeq(t *testing.T, spans []sdktrace.ReadOnlySpan, seq int64) sdktrace.ReadOnlySpan {
	t.Helper()
	for _, s := range spans {
		for _, a := range s.Attributes() {
			if a.Key == "spine.seq" && a.Value.AsInt64() == seq {
				return s
			}
		}
	}
	t.Fatalf("no span for seq %d", seq)
	return nil
}

func attrString(s sdktrace.ReadOnlySpan, key string) (string, bool) {
	for _, a := range s.Attributes() {
		if string(a.Key) == key {
			return a.Value.AsString(), true
		}
	}
	return "", false
}

// TestContent: with Options.Content a model call carries its messages in the GenAI
// conventions' shape (a tool call and its response as parts) and a tool call its
// arguments and output; without it, none of them.
func TestContent(t *testing.T) {
	spans, err := Spans(pipelineTrace, Options{Content: true})
	if err != nil {
		t.Fatal(err)
	}
	// seq 20: R3's second turn, after its read_file call failed.
	in, ok := attrString(bySeq(t, spans, 20), "gen_ai.input.messages")
	if !ok {
		t.Fatal("no gen_ai.input.messages")
	}
	var msgs []struct {
		Role  string           `json:"role"`
		Parts []map[string]any `json:"parts"`
	}
	if err := json.Unmarshal([]byte(in), &msgs); err != nil {
		t.Fatalf("gen_ai.input.messages is not JSON: %v", err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
	}
	if got := strings.Join(roles, ","); got != "system,user,assistant,tool" || len(msgs[0].Parts) != 1 || msgs[0].Parts[0]["type"] != "text" {
		t.Fatalf("input roles %s, system parts %v", got, msgs[0].Parts)
	}
	call, resp := msgs[2].Parts[0], msgs[3].Parts[0]
	if call["type"] != "tool_call" || call["id"] != "call-1" || call["name"] != "read_file" ||
		call["arguments"].(map[string]any)["path"] != "config/settings.yaml" {
		t.Errorf("assistant's tool call part %v", call)
	}
	if resp["type"] != "tool_call_response" || resp["id"] != "call-1" || !strings.HasPrefix(resp["response"].(string), "error: read_file") {
		t.Errorf("tool response part %v", resp)
	}
	out, _ := attrString(bySeq(t, spans, 20), "gen_ai.output.messages")
	if want := `[{"role":"assistant","parts":[{"type":"text","content":"{\"output\":\"config/settings.yaml does not exist\",\"status\":\"failed\"}"}],"finish_reason":"stop"}]`; out != want {
		t.Errorf("gen_ai.output.messages\n%s\nwant\n%s", out, want)
	}
	// seq 24 asks for a tool: the output is a tool call part, arguments as JSON.
	out, _ = attrString(bySeq(t, spans, 24), "gen_ai.output.messages")
	if want := `[{"role":"assistant","parts":[{"type":"tool_call","id":"call-2","name":"read_file","arguments":{"path":"config/settings.yml"}}],"finish_reason":"tool_calls"}]`; out != want {
		t.Errorf("gen_ai.output.messages\n%s\nwant\n%s", out, want)
	}
	tool := bySeq(t, spans, 19)
	if got, _ := attrString(tool, "gen_ai.tool.call.arguments"); got != `{"path":"config/settings.yaml"}` {
		t.Errorf("tool arguments %q", got)
	}
	if got, _ := attrString(tool, "gen_ai.tool.call.result"); got != "error: config/settings.yaml: no such file or directory" {
		t.Errorf("tool result %q", got)
	}

	plain, err := Spans(pipelineTrace, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range plain {
		for _, a := range s.Attributes() {
			if k := string(a.Key); k == keyInputMessages || k == keyOutputMessages || k == keyToolArguments || k == keyToolResult {
				t.Errorf("span %s has %s without Options.Content", s.Name(), k)
			}
		}
	}
}
