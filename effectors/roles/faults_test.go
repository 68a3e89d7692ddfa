package roles

import (
	"context"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// down is an endpoint's answer while it is down; the rig allows three attempts a call.
var down = llmtest.Reply{Status: 500, ErrorMessage: "upstream unavailable"}

func downFor(calls int) []llmtest.Reply {
	out := make([]llmtest.Reply, 3*calls)
	for i := range out {
		out[i] = down
	}
	return out
}

// directives lists the PlanDirectives GGS posted, by directive.
func directives(t *testing.T, got run) []string {
	t.Helper()
	var out []string
	for _, raw := range messages(t, got.trace, contract.TypePlanDirective) {
		out = append(out, decode[contract.PlanDirective](t, raw).Directive)
	}
	return out
}

// TestExecutorFaultRetriesTheSamePlan: R3's endpoint is down for one round. The fault is
// not a verdict — nothing enters D or P, nothing is blocked — GGS's rule retries the round,
// R2 is not asked again (its plan did not fail), and the retried round is accepted.
func TestExecutorFaultRetriesTheSamePlan(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, append(downFor(1), toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))...)
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "port: 8080")))
	r.script(llm.R4b, merged("port 8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	if d := directives(t, got); strings.Join(d, ",") != contract.DirectiveRetry {
		t.Fatalf("directives = %v, want one retry", d)
	}
	d := decode[contract.PlanDirective](t, messages(t, got.trace, contract.TypePlanDirective)[0])
	if len(d.BlockedTools) != 0 || len(d.BlockedTargets) != 0 || d.Loss.D != 1 || d.Loss.P != 0 ||
		!strings.Contains(d.Rationale, "a fault of the machinery (R3: model_unavailable)") {
		t.Errorf("retry directive = %+v", d)
	}
	if n := len(r.requests(llm.R2)); n != 1 {
		t.Errorf("R2 was asked %d times; a retry dispatches the same plan", n)
	}
	if fr := got.res.Final; fr.Replans != 0 {
		t.Errorf("final replans = %d; a retry is not a replan", fr.Replans)
	}
}

// TestPlannerContractBrokenAbandonsByRule: R2 answers prose, twice a round (the corrective
// turn included), for two rounds: the first fault is retried, the second ends the task by
// rule with the fault as the reason, a FinalResult and a graceful failure — not an error.
func TestPlannerContractBrokenAbandonsByRule(t *testing.T) {
	r := newRig(t)
	prose := llmtest.Reply{Content: "Sure! I would read the config file first."}
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, prose, prose, prose, prose)
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	fr := got.res.Final
	if fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultContractBroken ||
		!strings.Contains(fr.Summary, "a fault of the machinery (R2: contract_broken) cut 2 round(s) in a row short") {
		t.Fatalf("final = %+v", fr)
	}
	if d := directives(t, got); strings.Join(d, ",") != contract.DirectiveRetry {
		t.Errorf("directives = %v", d)
	}
	if got.res.Failure == nil {
		t.Error("no graceful failure")
	}
}

// TestPerceiverDownEndsWithAFinalResult: R1's endpoint is down through its retries, twice.
// The trace still begins with its header (it exists before R1's first request), the task
// ends by rule in a FinalResult naming model_unavailable, and the trace replays.
func TestPerceiverDownEndsWithAFinalResult(t *testing.T) {
	r := newRig(t)
	r.script(llm.R1, downFor(2)...)
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if fr := got.res.Final; fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultModelUnavailable {
		t.Fatalf("final = %+v", fr)
	}
	if !strings.HasPrefix(string(got.trace), `{"seq":1,`) || !strings.Contains(string(got.trace), `"kind":"halt"`) {
		t.Errorf("trace:\n%.400s", got.trace)
	}
	if n := len(exchanges(t, got.trace, "llm:R1")); n != 2 {
		t.Errorf("%d R1 exchanges in the trace, want 2", n)
	}
}

// TestPlannerCorneredAbandonsAtOnce: after a logical failure GGS blocks shell, and every
// plan R2 makes in the next round still uses it: the planner is cornered, which retrying
// cannot cure, so the task is abandoned by rule with that reason.
func TestPlannerCorneredAbandonsAtOnce(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	grep := sub{Intent: "Grep the port out of config/app.yaml", Criteria: []string{"the port is read from config/app.yaml"},
		Sequence: 1, Tools: []string{"shell"}, Targets: []string{"grep port config/app.yaml"}}
	again := func(n int) sub {
		s := grep
		s.Targets = []string{strings.Repeat("grep -n port config/app.yaml ", n)}
		return s
	}
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, grep), planned(portCriteria, again(1)), planned(portCriteria, again(2)), planned(portCriteria, again(3)))
	r.script(llm.R3, toolCall("c1", "shell", `{"command":"grep prot config/app.yaml"}`), done("completed", "nothing"))
	r.script(llm.R4a, judged("grep for port, not prot", verdict(grep.Criteria[0], "fail", "logical", "grep printed nothing")))
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	if fr := got.res.Final; fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultPlannerCornered {
		t.Fatalf("final = %+v", fr)
	}
	if d := directives(t, got); strings.Join(d, ",") != contract.DirectiveBreakSymmetry {
		t.Errorf("directives = %v", d)
	}
}
