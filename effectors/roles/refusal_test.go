package roles

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestExecutorHearsItsRefusal: R3's model refuses (OpenAI's refusal field, content null)
// after a tool call; the corrective turn quotes the refusal rather than calling the reply
// empty, and the answer that follows completes the subtask.
func TestExecutorHearsItsRefusal(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`),
		llmtest.Reply{Body: `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I will not read files."},"finish_reason":"stop"}]}`},
		done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
	r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "the subtask read port: 8080")))
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("final = %+v", got.res.Final)
	}
	reqs := r.requests(llm.R3)
	if len(reqs) != 3 {
		t.Fatalf("R3 got %d requests, want 3", len(reqs))
	}
	msgs := reqs[2].Chat.Messages
	if last := msgs[len(msgs)-1]; last.Role != llm.RoleUser ||
		!strings.Contains(last.Content, `the model refused instead of answering: "I will not read files."`) {
		t.Errorf("R3's corrective turn: %s %q", last.Role, last.Content)
	}
}
