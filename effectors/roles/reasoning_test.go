package roles

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestReasoningIsRecordedAndNeverSentBack: an endpoint that returns reasoning_content
// beside its answers (R2's first answer broken, so it gets a corrective turn; R3's tool
// call, so its next turn carries the call) has that reasoning kept in the trace's
// exchanges, with the text of a <think> block, while no later request to any role
// carries it. The trace replays byte for byte (the rig checks).
func TestReasoningIsRecordedAndNeverSentBack(t *testing.T) {
	const (
		r2Reasoning = "R2-REASONING: the port is in config/app.yaml, plan one read."
		r3Reasoning = "R3-REASONING: read the file first."
		thinkText   = "THINK-BLOCK: draft plan"
	)
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	broken := llmtest.Text("<think>" + thinkText + "</think>\n" + `{"task_criteria": ["x"], "subtasks": [`)
	broken.ReasoningContent = r2Reasoning
	good := planned(portCriteria, readPort)
	good.ReasoningContent = r2Reasoning + " (again)"
	r.script(llm.R2, broken, good)
	call := toolCall("c1", "read_file", `{"path":"config/app.yaml"}`)
	call.ReasoningContent = r3Reasoning
	r.script(llm.R3, call, done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
	r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "the subtask read port: 8080")))

	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}

	var recorded []string
	for _, name := range []string{"llm:R2", "llm:R3"} {
		for _, x := range exchanges(t, got.trace, name) {
			var resp contract.ModelResponse
			if err := json.Unmarshal(x.Response, &resp); err != nil {
				t.Fatal(err)
			}
			recorded = append(recorded, resp.ReasoningContent)
			if strings.Contains(resp.Content, thinkText) && !strings.Contains(resp.Content, "<think>"+thinkText+"</think>") {
				t.Errorf("the think block is not recorded whole: %q", resp.Content)
			}
		}
	}
	if want := []string{r2Reasoning, r2Reasoning + " (again)", r3Reasoning, ""}; strings.Join(recorded, "|") != strings.Join(want, "|") {
		t.Errorf("recorded reasoning %q, want %q", recorded, want)
	}
	if !bytes.Contains(got.trace, []byte(thinkText)) {
		t.Error("the think block's text is not in the trace")
	}

	if n := len(r.requests(llm.R2)); n != 2 {
		t.Fatalf("R2 called %d times, want 2 (a corrective turn)", n)
	}
	for _, role := range llm.Roles {
		for i, req := range r.requests(role) {
			for _, secret := range []string{"R2-REASONING", "R3-REASONING", "reasoning_content", thinkText} {
				if bytes.Contains(req.Body, []byte(secret)) {
					t.Errorf("%s request %d carries %q: %s", role, i+1, secret, req.Body)
				}
			}
		}
	}
}
