package roles

import (
	"context"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestToolCallsWithoutIDGetOneBeforeTheyAreSentBack: an endpoint that sends tool calls
// without ids (some OpenAI-compatible servers do) gets back an assistant turn whose calls
// carry the ids the runtime gave them, each answered by the tool message naming it; an
// endpoint that checks the pairing, as OpenAI's does, would refuse anything else.
func TestToolCallsWithoutIDGetOneBeforeTheyAreSentBack(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
	r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "the subtask read port: 8080")))
	r.script(llm.R3, llmtest.Reply{ToolCalls: []llmtest.ToolCall{
		{Name: "read_file", Arguments: `{"path":"config/app.yaml"}`},
		{Name: "read_file", Arguments: `{"path":"config/app.yaml"}`}}}, done("completed", "port: 8080"))
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("final = %+v", got.res.Final)
	}
	reqs := r.requests(llm.R3)
	if len(reqs) != 2 {
		t.Fatalf("R3 got %d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Chat.Messages
	if len(msgs) != 5 || msgs[2].Role != llm.RoleAssistant || len(msgs[2].ToolCalls) != 2 {
		t.Fatalf("R3's second request: %+v", msgs)
	}
	for i, want := range []string{"call-1-1", "call-1-2"} {
		if id := msgs[2].ToolCalls[i].ID; id != want {
			t.Errorf("the assistant turn's call %d has id %q, want %q", i+1, id, want)
		}
		if tm := msgs[3+i]; tm.Role != llm.RoleTool || tm.ToolCallID != want {
			t.Errorf("message %d: %s answering %q, want the tool answering %q", 4+i, tm.Role, tm.ToolCallID, want)
		}
	}
}
