package roles

import (
	"context"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// noChoices is a 200 response that holds no answer at all.
var noChoices = llmtest.Reply{Body: `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[],"usage":{}}`}

// TestNoChoicesIsAFault: an endpoint that answers with no choices is a fault of the
// machinery like any other endpoint failure, for a role that asks for JSON (R1) and for
// R4a, whose judging error used to stop the run without a FinalResult. Twice in a row,
// the task is abandoned by rule with model_unavailable.
func TestNoChoicesIsAFault(t *testing.T) {
	t.Run("R1", func(t *testing.T) {
		r := newRig(t)
		r.script(llm.R1, noChoices, noChoices)
		assertAbandonedUnavailable(t, r.run(context.Background(), portTask))
	})
	t.Run("R4a", func(t *testing.T) {
		r := newRig(t)
		r.file("config/app.yaml", "port: 8080\n")
		r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
		r.script(llm.R2, planned(portCriteria, readPort))
		read := toolCall("c1", "read_file", `{"path":"config/app.yaml"}`)
		r.script(llm.R3, read, done("completed", "port: 8080"), read, done("completed", "port: 8080"))
		r.script(llm.R4a, noChoices, noChoices)
		assertAbandonedUnavailable(t, r.run(context.Background(), portTask))
	})
}

func assertAbandonedUnavailable(t *testing.T, got run) {
	t.Helper()
	if got.err != nil {
		t.Fatal(got.err)
	}
	if fr := got.res.Final; fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultModelUnavailable {
		t.Fatalf("final = %+v", fr)
	}
}
