package telemetry

import (
	"encoding/json"

	"go.opentelemetry.io/otel/attribute"

	"github.com/agentspine/spine/contract"
)

// Content attributes, opt-in in the GenAI conventions as they are here (Options.Content):
// they carry what was said, which can be large and sensitive. The trace they come
// from is already scrubbed of secrets.
const (
	keyInputMessages  = "gen_ai.input.messages"
	keyOutputMessages = "gen_ai.output.messages"
	keyToolArguments  = "gen_ai.tool.call.arguments"
	keyToolResult     = "gen_ai.tool.call.result"
)

// chatMessage and part are the conventions' message shape: a role and its parts, each
// text, a tool call or a tool call's response.
type chatMessage struct {
	Role         string `json:"role"`
	Parts        []part `json:"parts"`
	FinishReason string `json:"finish_reason,omitempty"`
}

type part struct {
	Type      string `json:"type"`
	Content   string `json:"content,omitempty"`
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments any    `json:"arguments,omitempty"`
	Response  any    `json:"response,omitempty"` // set, even to "", on a tool call response
}

// contentAttrs are a model call's input and output messages as the conventions shape
// them, from the recorded request and response.
func contentAttrs(req contract.ModelRequest, resp contract.ModelResponse, answered bool) []attribute.KeyValue {
	in := make([]chatMessage, 0, len(req.Messages))
	for _, m := range req.Messages {
		cm := chatMessage{Role: m.Role, Parts: []part{}}
		switch {
		case m.Role == "tool":
			cm.Parts = append(cm.Parts, part{Type: "tool_call_response", ID: m.ToolCallID, Response: m.Content})
		case m.Content != "":
			cm.Parts = append(cm.Parts, part{Type: "text", Content: m.Content})
		}
		cm.Parts = append(cm.Parts, toolCallParts(m.ToolCalls)...)
		in = append(in, cm)
	}
	attrs := []attribute.KeyValue{attribute.String(keyInputMessages, mustJSON(in))}
	if answered {
		out := chatMessage{Role: "assistant", Parts: []part{}, FinishReason: resp.FinishReason}
		if resp.Content != "" {
			out.Parts = append(out.Parts, part{Type: "text", Content: resp.Content})
		}
		out.Parts = append(out.Parts, toolCallParts(resp.ToolCalls)...)
		attrs = append(attrs, attribute.String(keyOutputMessages, mustJSON([]chatMessage{out})))
	}
	return attrs
}

func toolCallParts(calls []contract.ModelToolCall) []part {
	parts := make([]part, 0, len(calls))
	for _, c := range calls {
		var args any = c.Arguments
		if json.Valid([]byte(c.Arguments)) {
			args = json.RawMessage(c.Arguments)
		}
		parts = append(parts, part{Type: "tool_call", ID: c.ID, Name: c.Name, Arguments: args})
	}
	return parts
}

// toolContentAttrs are a tool call's arguments and its output.
func toolContentAttrs(arguments string, res contract.ToolResponse, answered bool) []attribute.KeyValue {
	var attrs []attribute.KeyValue
	if arguments != "" {
		attrs = append(attrs, attribute.String(keyToolArguments, arguments))
	}
	if answered {
		attrs = append(attrs, attribute.String(keyToolResult, res.Output))
	}
	return attrs
}

// mustJSON encodes v, which holds only strings and raw JSON that was checked valid.
func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
