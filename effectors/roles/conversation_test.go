package roles

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

// TestFitConversation: a conversation over its budget loses its oldest tool output
// first, then its oldest call arguments, each replaced by its size, until it fits; the
// prompts and the model's text stay.
func TestFitConversation(t *testing.T) {
	out := strings.Repeat("<", contract.MaxModelRequest/6/3+1) // a third of the budget once escaped, and a bit
	call := func(id string) contract.ModelMessage {
		return contract.ModelMessage{Role: llm.RoleAssistant, Content: "reading", ToolCalls: []contract.ModelToolCall{{ID: id, Name: "read_file", Arguments: `{"path":"a"}`}}}
	}
	req := contract.ModelRequest{Messages: []contract.ModelMessage{
		{Role: llm.RoleSystem, Content: "system"}, {Role: llm.RoleUser, Content: "user"},
		call("c1"), {Role: llm.RoleTool, Content: out, ToolCallID: "c1"},
		call("c2"), {Role: llm.RoleTool, Content: out, ToolCallID: "c2"},
		call("c3"), {Role: llm.RoleTool, Content: "short", ToolCallID: "c3"},
	}}
	if n := fitConversation(&req); n != 0 {
		t.Fatalf("a conversation within its budget lost %d parts", n)
	}
	req.Messages = append(req.Messages, call("c4"), contract.ModelMessage{Role: llm.RoleTool, Content: out, ToolCallID: "c4"})
	if n := fitConversation(&req); n != 1 {
		t.Fatalf("%d parts elided, want 1", n)
	}
	b, _ := json.Marshal(req)
	if len(b) > contract.MaxModelRequest {
		t.Errorf("the request is %d bytes, over %d", len(b), contract.MaxModelRequest)
	}
	want := fmt.Sprintf("[elided: %d bytes of output, to keep the conversation within its size limit]", len(out))
	if got := req.Messages[3].Content; got != want {
		t.Errorf("the oldest output reads %.80q, want %q", got, want)
	}
	for _, i := range []int{5, 9} {
		if req.Messages[i].Content != out {
			t.Errorf("message %d was elided; only the oldest output needed to be", i)
		}
	}
	if n := fitConversation(&req); n != 0 {
		t.Errorf("fitting again elided %d more", n)
	}
}
