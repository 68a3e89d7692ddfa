package roles

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
)

const portTask = "What port does config/app.yaml set?"

var (
	portCriteria = []string{"the answer names the port that config/app.yaml sets"}
	readPort     = sub{Intent: "Read config/app.yaml and report its port", Criteria: []string{"the port is read from config/app.yaml"},
		Sequence: 1, Tools: []string{"read_file"}, Targets: []string{"config/app.yaml"}}
)

// scriptAccept queues a one-round run that every role gets right.
func scriptAccept(r *rig) {
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
	r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "the subtask read port: 8080")))
}

func TestAcceptOnFirstRound(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if finalDirective(got) != contract.DirectiveAccept || got.res.Final.Replans != 0 || got.res.Final.Loss.D != 0 {
		t.Fatalf("final = %+v", got.res.Final)
	}
	if got.res.Failure != nil {
		t.Errorf("an accepted task has a graceful failure: %+v", got.res.Failure)
	}
	task := decode[contract.TaskSpec](t, messages(t, got.trace, contract.TypeTaskSpec)[0])
	if task.RawInput != portTask || task.TaskID != "task-1" || task.Intent != "Find the port that config/app.yaml sets" {
		t.Errorf("TaskSpec = %+v", task)
	}
	outs := messages(t, got.trace, contract.TypeSubTaskOutcome)
	if len(outs) != 1 {
		t.Fatalf("%d SubTaskOutcome messages", len(outs))
	}
	o := decode[contract.SubTaskOutcome](t, outs[0])
	if o.Status != contract.OutcomeMatched || len(o.ToolCalls) != 1 || !strings.HasPrefix(o.ToolCalls[0], "read_file:config/app.yaml → ") {
		t.Errorf("outcome = %+v", o)
	}
	for _, role := range llm.Roles {
		if n := len(r.requests(role)); n == 0 {
			t.Errorf("%s was never called", role)
		}
	}
	if n := len(exchanges(t, got.trace, "tool:read_file")); n != 1 {
		t.Errorf("%d tool:read_file exchanges", n)
	}
}
