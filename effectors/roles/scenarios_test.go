package roles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

var (
	readV2 = sub{Intent: "Read config/app.v2.yaml and report its port",
		Criteria: []string{"the port is read from config/app.v2.yaml", "the port is a number"},
		Sequence: 1, Tools: []string{"read_file"}, Targets: []string{"config/app.v2.yaml"}}
	twoCriteria = []string{"the answer names the port of the app's configuration", "the answer says which file it came from"}
)

// scriptMissingFile queues a first round whose file is not there: R4a fails the
// criterion as environmental, so GGS answers change_path with the target blocked.
func scriptMissingFile(r *rig) {
	r.script(llm.R1, perceived("Find the port that the app's configuration sets"))
	r.script(llm.R2, planned(twoCriteria, readPort))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`),
		done("failed", "config/app.yaml does not exist"))
	r.script(llm.R4a, judged("look for the configuration under another name",
		verdict(readPort.Criteria[0], "fail", "environmental", "read_file:config/app.yaml → refused: no such file")))
}

// TestReplanChangePathThenSuccess: round 1 fails on a missing file (environmental), GGS
// directs change_path with the file blocked; R2's first replan points at the blocked
// file again and the plan validator rejects it; the second reads the right file; R4b
// accepts all subtasks but rejects one task criterion of four, D = 0.25 ≤ δ: success.
func TestReplanChangePathThenSuccess(t *testing.T) {
	r := newRig(t)
	r.file("config/app.v2.yaml", "port: 9090\n")
	scriptMissingFile(r)
	r.script(llm.R2, planned(twoCriteria, readPort), planned(twoCriteria, readV2))
	r.script(llm.R3, toolCall("c2", "read_file", `{"path":"config/app.v2.yaml"}`), done("completed", "port: 9090"))
	r.script(llm.R4a, judged("", verdict(readV2.Criteria[0], "pass", "", "read port: 9090"),
		verdict(readV2.Criteria[1], "pass", "", "9090")))
	r.script(llm.R4b, merged("the port is 9090", "9090", verdict(twoCriteria[0], "pass", "", "port: 9090"),
		verdict(twoCriteria[1], "fail", "logical", "the merged answer does not name the file")))

	got := r.run(context.Background(), "What port does the app use?")
	if got.err != nil {
		t.Fatal(got.err)
	}
	if finalDirective(got) != contract.DirectiveSuccess || got.res.Final.Replans != 1 || got.res.Final.PrevDirective != contract.DirectiveChangePath {
		t.Fatalf("final = %+v", got.res.Final)
	}
	dirs := messages(t, got.trace, contract.TypePlanDirective)
	if len(dirs) != 1 {
		t.Fatalf("%d PlanDirectives", len(dirs))
	}
	d := decode[contract.PlanDirective](t, dirs[0])
	if d.Directive != contract.DirectiveChangePath || len(d.BlockedTargets) != 1 || d.BlockedTargets[0] != "read_file:config/app.yaml" {
		t.Fatalf("directive = %+v", d)
	}
	// Round 1: the fan-in gate failed, R4b's model was called only in round 2.
	if n := len(r.requests(llm.R4b)); n != 1 {
		t.Errorf("R4b called %d times, want once (round 2 only)", n)
	}
	// The replan that pointed at the blocked file was rejected and asked again.
	r2 := r.requests(llm.R2)
	if len(r2) != 3 {
		t.Fatalf("R2 called %d times, want 3", len(r2))
	}
	last := r2[2].Chat.Messages
	if msg := last[len(last)-1].Content; !strings.Contains(msg, "plan validator rejected") || !strings.Contains(msg, `"config/app.yaml", which is blocked by the GGS directive`) {
		t.Errorf("the re-ask does not quote the violation: %s", msg)
	}
	checks := exchanges(t, got.trace, "check:plan")
	if len(checks) != 3 {
		t.Errorf("%d plan checks journalled, want 3", len(checks))
	}
}

// TestAbandonWithGracefulFailure: the clock runs so slowly that one round spends the
// time budget; the first subtask matched and the second failed, so GGS abandons and R2's
// graceful failure carries the partial result and two or three next moves.
func TestAbandonWithGracefulFailure(t *testing.T) {
	r := newRig(t)
	r.cfg.Clock = clock.NewStep(epoch, 2*time.Minute)
	r.file("notes.txt", "alpha\n")
	list := sub{Intent: "List the files of the project", Criteria: []string{"the listing names notes.txt"}, Sequence: 1,
		Tools: []string{"list_files"}, Targets: []string{"."}}
	count := sub{Intent: "Count the lines of CHANGELOG.md", Criteria: []string{"the count comes from CHANGELOG.md"}, Sequence: 2,
		Tools: []string{"read_file"}, Targets: []string{"CHANGELOG.md"}}
	r.script(llm.R1, perceived("List the project and count the changelog's lines"))
	r.script(llm.R2, planned([]string{"the listing is given", "the changelog's line count is given"}, list, count))
	r.script(llm.R3, toolCall("c1", "list_files", `{}`), done("completed", []string{"notes.txt"}),
		toolCall("c2", "read_file", `{"path":"CHANGELOG.md"}`), done("failed", "CHANGELOG.md is missing"))
	r.script(llm.R4a, judged("", verdict(list.Criteria[0], "pass", "", "list_files:. → notes.txt")),
		judged("find the changelog", verdict(count.Criteria[0], "fail", "environmental", "no such file")))

	got := r.run(context.Background(), "List the project and count the lines of the changelog")
	if got.err != nil {
		t.Fatal(got.err)
	}
	if finalDirective(got) != contract.DirectiveAbandon || got.res.Final.Loss.D <= 0 {
		t.Fatalf("final = %+v", got.res.Final)
	}
	if n := len(r.requests(llm.R4b)); n != 0 {
		t.Errorf("R4b's model was called %d times although a subtask failed", n)
	}
	g := got.res.Failure
	if g == nil {
		t.Fatal("no graceful failure on abandon")
	}
	if len(g.Completed) != 1 || g.Completed[0].Intent != list.Intent {
		t.Errorf("partial result = %+v", g.Completed)
	}
	if n := len(g.NextMoves); n < 2 || n > 3 {
		t.Errorf("%d next moves, want 2 or 3: %q", n, g.NextMoves)
	}
	if len(g.Failed) == 0 || !strings.Contains(strings.Join(g.Failed, "\n"), "CHANGELOG.md") {
		t.Errorf("failed = %q", g.Failed)
	}
	text := g.Text()
	for _, want := range []string{"Done so far:", "What failed:", "Next moves:", "1. "} {
		if !strings.Contains(text, want) {
			t.Errorf("graceful failure text lacks %q:\n%s", want, text)
		}
	}
}

// TestMalformedJSONGetsOneCorrectiveRetry: R2's first answer is broken JSON, the
// corrective turn quotes the problem, the second answer is used.
func TestMalformedJSONGetsOneCorrectiveRetry(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R2, llmtest.Text(`Here is the plan: {"task_criteria": ["x"], "subtasks": [`))
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	reqs := r.requests(llm.R2)
	if len(reqs) != 2 {
		t.Fatalf("R2 called %d times, want 2", len(reqs))
	}
	msgs := reqs[1].Chat.Messages
	if msgs[len(msgs)-2].Role != llm.RoleAssistant || !strings.Contains(msgs[len(msgs)-1].Content, "could not be used") {
		t.Errorf("the retry does not quote the problem: %+v", msgs[len(msgs)-2:])
	}
	if n := len(exchanges(t, got.trace, "llm:R2")); n != 2 {
		t.Errorf("%d llm:R2 exchanges journalled, want 2 (the retry included)", n)
	}
}

// TestThinkBlocksAreStripped: reasoning blocks before the JSON do not break any role.
func TestThinkBlocksAreStripped(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	think := func(body string) llmtest.Reply {
		return llmtest.Text("<think>The user wants {a port}. Let me think it through.</think>\n" + body)
	}
	r.script(llm.R1, think(`{"intent":"Find the port that config/app.yaml sets","constraints":{"scope":"config/app.yaml","deadline":null},"questions":[]}`))
	r.script(llm.R2, think("```json\n"+string(mustJSON(map[string]any{"task_criteria": portCriteria, "subtasks": []sub{readPort}}))+"\n```"))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), think(`{"status":"completed","output":"8080"}`))
	r.script(llm.R4a, think(string(mustJSON(map[string]any{"verdicts": []any{verdict(readPort.Criteria[0], "pass", "", "port: 8080")}, "what_to_do": ""}))))
	r.script(llm.R4b, think(string(mustJSON(map[string]any{"summary": "8080", "merged": 8080, "verdicts": []any{verdict(portCriteria[0], "pass", "", "port: 8080")}}))))
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	task := decode[contract.TaskSpec](t, messages(t, got.trace, contract.TypeTaskSpec)[0])
	if task.Constraints.Scope == nil || *task.Constraints.Scope != "config/app.yaml" {
		t.Errorf("scope = %v", task.Constraints.Scope)
	}
	for _, role := range llm.Roles {
		if n := len(r.requests(role)); role != llm.R3 && n != 1 {
			t.Errorf("%s called %d times: a think block cost a corrective retry", role, n)
		}
	}
}

// TestRateLimitThenSuccess: a 429 with Retry-After is retried inside one model call; the
// exchange records two attempts.
func TestRateLimitThenSuccess(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R3, llmtest.RateLimited("0"))
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	xs := exchanges(t, got.trace, "llm:R3")
	if len(xs) != 2 || attemptsOf(t, xs[0]) != 2 || xs[0].Error != "" {
		t.Fatalf("R3 exchanges = %+v", xs)
	}
}

// TestTimeoutThenSuccess: an answer that does not come within the per-call timeout is
// retried; the exchange records two attempts.
func TestTimeoutThenSuccess(t *testing.T) {
	r := newRig(t, withTimeout(150*time.Millisecond))
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, llmtest.Reply{Stall: 3 * time.Second, Content: "{}"})
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	xs := exchanges(t, got.trace, "llm:R1")
	if len(xs) != 1 || attemptsOf(t, xs[0]) != 2 {
		t.Fatalf("R1 exchanges = %+v", xs)
	}
}

// TestTimeoutsExhaustedFailTheSubtask: an executor whose model never answers fails its
// subtask as environmental; the run goes on to GGS instead of crashing.
func TestTimeoutsExhaustedFailTheSubtask(t *testing.T) {
	r := newRig(t, withTimeout(100*time.Millisecond))
	r.cfg.Clock = clock.NewStep(epoch, 3*time.Minute) // abandon at the first replan point
	stall := llmtest.Reply{Stall: 2 * time.Second, Content: "{}"}
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, stall, stall, stall)
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	// The executor's model never answered: a fault of the machinery, not a verdict.
	o := decode[contract.SubTaskOutcome](t, messages(t, got.trace, contract.TypeSubTaskOutcome)[0])
	if o.Status != contract.OutcomeFailed || o.Fault == nil || o.Fault.Role != "R3" ||
		o.Fault.Kind != contract.FaultModelUnavailable || len(o.CriteriaVerdicts) != 0 {
		t.Fatalf("outcome = %+v", o)
	}
	if len(r.requests(llm.R4a)) != 0 || len(r.requests(llm.R4b)) != 0 {
		t.Error("validators were called for a subtask whose executor never answered")
	}
	// Retrying would be the rule, but the budget is spent (three minutes a clock reading);
	// the reason says that nothing but the fault happened.
	if fr := got.res.Final; fr == nil || fr.Directive != contract.DirectiveAbandon || fr.Reason != contract.FaultModelUnavailable {
		t.Fatalf("final = %+v", fr)
	}
}

// TestBlockedToolIsRejected: a logical failure on the first round makes GGS break
// symmetry and block shell; R2's replan with shell is rejected by the plan validator,
// and the executor is not even offered the blocked tool.
func TestBlockedToolIsRejected(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	grep := sub{Intent: "Grep the port out of config/app.yaml", Criteria: []string{"the port is read from config/app.yaml"},
		Sequence: 1, Tools: []string{"shell"}, Targets: []string{"grep port config/app.yaml"}}
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, grep), planned(portCriteria, sub{Intent: "Grep again for the port", Criteria: grep.Criteria,
		Sequence: 1, Tools: []string{"shell"}, Targets: []string{"grep -n port config/app.yaml"}}), planned(portCriteria, readPort))
	r.script(llm.R3, toolCall("c1", "shell", `{"command":"grep prot config/app.yaml"}`), done("completed", "nothing"),
		toolCall("c2", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("grep for port, not prot", verdict(grep.Criteria[0], "fail", "logical", "grep printed nothing")),
		judged("", verdict(readPort.Criteria[0], "pass", "", "port: 8080")))
	r.script(llm.R4b, merged("port 8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))

	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	d := decode[contract.PlanDirective](t, messages(t, got.trace, contract.TypePlanDirective)[0])
	if d.Directive != contract.DirectiveBreakSymmetry || strings.Join(d.BlockedTools, ",") != "shell" {
		t.Fatalf("directive = %+v", d)
	}
	reqs := r.requests(llm.R2)
	if len(reqs) != 3 {
		t.Fatalf("R2 called %d times, want 3", len(reqs))
	}
	msgs := reqs[2].Chat.Messages
	if !strings.Contains(msgs[len(msgs)-1].Content, "uses the tool shell, which is blocked by the GGS directive") {
		t.Errorf("re-ask = %s", msgs[len(msgs)-1].Content)
	}
	for _, req := range r.requests(llm.R3)[2:] {
		for _, tool := range req.Chat.Tools {
			if strings.Contains(string(tool), `"shell"`) {
				t.Errorf("R3 was offered the blocked tool in round 2: %s", tool)
			}
		}
	}
}

// TestSubTaskIDsComeFromTheRuntime: the model writes its own subtask ids; they are thrown
// away and the runtime's IDs are used everywhere.
func TestSubTaskIDsComeFromTheRuntime(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, jsonText(map[string]any{"task_criteria": portCriteria, "subtasks": []any{map[string]any{
		"subtask_id": "model-made-0001", "parent_task_id": "model-task", "intent": readPort.Intent,
		"success_criteria": readPort.Criteria, "context": "", "sequence": 1, "tools": readPort.Tools, "targets": readPort.Targets}}}))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "port: 8080")))
	r.script(llm.R4b, merged("8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	st := decode[contract.Assignment](t, messages(t, got.trace, contract.TypeSubTask)[0])
	man := decode[contract.DispatchManifest](t, messages(t, got.trace, contract.TypeDispatchManifest)[0])
	o := decode[contract.SubTaskOutcome](t, messages(t, got.trace, contract.TypeSubTaskOutcome)[0])
	if st.SubTaskID != "sub-1" || st.ParentTaskID != "task-1" || strings.Join(man.SubTaskIDs, ",") != "sub-1" || o.SubTaskID != "sub-1" {
		t.Fatalf("ids: subtask %q/%q, manifest %v, outcome %q", st.SubTaskID, st.ParentTaskID, man.SubTaskIDs, o.SubTaskID)
	}
	// The model's id appears only in R2's own exchange, never in a message or a later request.
	for _, line := range bytes.Split(got.trace, []byte("\n")) {
		if bytes.Contains(line, []byte("model-made-0001")) && !bytes.Contains(line, []byte(`"name":"llm:R2"`)) {
			t.Errorf("the model's subtask id escaped into: %s", clip(string(line), 200))
		}
	}
}

// TestSandboxEscapesAreRefused: reads through ../, an absolute path and a symlink that
// leaves the working directory are refused; the outside file's content never reaches the
// model or the trace.
func TestSandboxEscapesAreRefused(t *testing.T) {
	r := newRig(t)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("TOP-SECRET-OUTSIDE"), 0o644); err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(r.dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(r.dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	snoop := sub{Intent: "Read the secret", Criteria: []string{"the secret is read"}, Sequence: 1,
		Tools: []string{"read_file", "shell"}, Targets: []string{"secret.txt"}}
	r.cfg.Clock = clock.NewStep(epoch, 3*time.Minute)
	r.script(llm.R1, perceived("Read the secret"))
	r.script(llm.R2, planned([]string{"the secret is shown"}, snoop))
	r.script(llm.R3,
		toolCall("c1", "read_file", mustString(map[string]string{"path": rel})),
		toolCall("c2", "read_file", mustString(map[string]string{"path": outside})),
		toolCall("c3", "read_file", `{"path":"link.txt"}`),
		toolCall("c4", "shell", mustString(map[string]string{"command": "cat " + outside})),
		done("failed", "every read was refused"))
	r.script(llm.R4a, judged("none", verdict(snoop.Criteria[0], "fail", "environmental", "refused")))
	got := r.run(context.Background(), "Show me the secret")
	if got.err != nil {
		t.Fatal(got.err)
	}
	if bytes.Contains(got.trace, []byte("TOP-SECRET-OUTSIDE")) {
		t.Fatal("the outside file's content is in the trace")
	}
	var refused int
	for _, name := range []string{"tool:read_file", "tool:shell"} {
		for _, x := range exchanges(t, got.trace, name) {
			if x.Error == "" {
				t.Errorf("%s was not refused: %+v", name, x)
			}
			refused++
		}
	}
	if refused != 4 {
		t.Errorf("%d refused tool calls, want 4", refused)
	}
	for _, req := range r.requests(llm.R3) {
		if strings.Contains(string(req.Body), "TOP-SECRET-OUTSIDE") {
			t.Error("the outside file's content reached the model")
		}
	}
}

// TestAPIKeyNeverInTrace: an endpoint that echoes the Authorization header in its error
// does not put the key in the trace; every request did carry it.
func TestAPIKeyNeverInTrace(t *testing.T) {
	r := newRig(t)
	r.cfg.Clock = clock.NewStep(epoch, 3*time.Minute)
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, llmtest.Reply{Status: 400, ErrorMessage: "bad request", EchoAuth: true})
	got := r.run(context.Background(), portTask)
	if got.err != nil {
		t.Fatal(got.err)
	}
	xs := exchanges(t, got.trace, "llm:R3")
	if len(xs) != 1 || xs[0].Error == "" || !strings.Contains(xs[0].Error, "bad request") {
		t.Fatalf("R3 exchange = %+v", xs)
	}
	for _, role := range []llm.RoleName{llm.R1, llm.R2, llm.R3} {
		for _, req := range r.requests(role) {
			if req.Header.Get("Authorization") != "Bearer "+testKey {
				t.Errorf("%s request without the key", role)
			}
		}
	}
	// r.run already failed the test if the key were in the trace; check the check.
	if !bytes.Contains(got.trace, []byte("bad request")) {
		t.Error("the endpoint's error is not in the trace")
	}
}

// TestCancelStopsCleanly: cancelling the context while R3's model is working stops the
// run at once with the trace intact: a rule abandons the task with reason cancelled, the
// FinalResult carries the graceful failure, the trace ends with a halt and replays byte
// for byte.
func TestCancelStopsCleanly(t *testing.T) {
	r := newRig(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, llmtest.Reply{Stall: 30 * time.Second, Content: "{}"})
	go func() {
		for len(r.requests(llm.R3)) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
		cancel()
	}()
	start := time.Now()
	got := r.run(ctx, portTask)
	if !errors.Is(got.err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", got.err)
	}
	if time.Since(start) > 10*time.Second {
		t.Errorf("the run took %s to stop", time.Since(start))
	}
	// Cancelled is still an ending a rule decides: GGS abandons with the cancellation as
	// the reason, and the FinalResult carries R2's graceful failure.
	fr := got.res.Final
	if got.res.Result.Outcome != engine.OutcomeCanceled || fr == nil || fr.Directive != contract.DirectiveAbandon ||
		fr.Reason != contract.FaultCancelled || fr.Failure == nil || got.res.Failure != fr.Failure {
		t.Fatalf("result = %+v, final %+v", got.res.Result, fr)
	}
	if !strings.Contains(fr.Summary, "the run was cancelled") || !strings.Contains(fr.Failure.Summary, "the run was cancelled") {
		t.Errorf("summary %q, graceful failure %q", fr.Summary, fr.Failure.Summary)
	}
	finals := messages(t, got.trace, contract.TypeFinalResult)
	if len(finals) != 1 || !bytes.Contains(finals[0], []byte(`"graceful_failure":{`)) {
		t.Errorf("FinalResults on the bus: %s", finals)
	}
	lines := bytes.Split(bytes.TrimSpace(got.trace), []byte("\n"))
	if !bytes.Contains(lines[len(lines)-1], []byte(`"kind":"halt"`)) {
		t.Errorf("the trace does not end with a halt: %s", lines[len(lines)-1])
	}
	if len(messages(t, got.trace, contract.TypeDispatchManifest)) != 1 {
		t.Error("the work done before the cancel is not in the trace")
	}
}

// TestParallelSubtasksJournalInPlanOrder: two subtasks of one sequence number run at
// once and finish in either order; the trace is the same every time and lists the first
// subtask's work before the second's.
func TestParallelSubtasksJournalInPlanOrder(t *testing.T) {
	var first []byte
	for i := 0; i < 4; i++ {
		r := newRig(t)
		r.cfg.Clock = fixedClock{epoch}
		crit := []string{"the file is read"}
		a := sub{Intent: "Read a.txt", Criteria: crit, Sequence: 1, Tools: []string{"read_file"}}
		b := sub{Intent: "Read b.txt", Criteria: crit, Sequence: 1, Tools: []string{"read_file"}}
		r.script(llm.R1, perceived("Read both files"))
		r.script(llm.R2, planned([]string{"both files are read"}, a, b))
		r.file("a.txt", "alpha\n")
		// Whichever executor asks first waits; the answers are the same for both (each
		// reads a.txt, so that its tool call is evidence and the traces can be compared).
		slow := toolCall("c1", "read_file", `{"path":"a.txt"}`)
		slow.Stall = 150 * time.Millisecond
		r.script(llm.R3, slow, toolCall("c1", "read_file", `{"path":"a.txt"}`), done("completed", "read"), done("completed", "read"))
		r.script(llm.R4a, judged("", verdict(crit[0], "pass", "", "read")), judged("", verdict(crit[0], "pass", "", "read")))
		r.script(llm.R4b, merged("both read", "read", verdict("both files are read", "pass", "", "read")))
		got := r.run(context.Background(), "Read a.txt and b.txt")
		if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
			t.Fatalf("err %v, final %s", got.err, finalDirective(got))
		}
		if i == 0 {
			first = got.trace
		} else if d := replay.CompareTraces(first, got.trace, 0); d != nil {
			t.Fatalf("run %d differs from run 1: %s", i+1, d)
		}
		var order []string
		for _, raw := range messages(t, got.trace, contract.TypeExecutionResult) {
			order = append(order, decode[contract.ExecutionResult](t, raw).SubTaskID)
		}
		for _, raw := range messages(t, got.trace, contract.TypeSubTaskOutcome) {
			order = append(order, decode[contract.SubTaskOutcome](t, raw).SubTaskID)
		}
		if strings.Join(order, ",") != "sub-1,sub-2,sub-1,sub-2" {
			t.Fatalf("journal order %v", order)
		}
	}
}

// TestClarifyingQuestions: R1 asks only when it finds no reading; the answer goes back to
// it; raw_input stays the user's words.
func TestClarifyingQuestions(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	asked := 0
	r.cfg.Clarify = clarifyFunc(func(_ context.Context, qs []string) (string, error) {
		asked++
		if len(qs) != 2 {
			t.Errorf("questions not batched: %q", qs)
		}
		return "the port of config/app.yaml", nil
	})
	r.script(llm.R1, jsonText(map[string]any{"intent": "", "constraints": map[string]any{"scope": nil, "deadline": nil},
		"questions": []string{"Which port?", "Of which service?"}}))
	scriptAccept(r)
	got := r.run(context.Background(), "port")
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	if asked != 1 {
		t.Errorf("asked %d times", asked)
	}
	task := decode[contract.TaskSpec](t, messages(t, got.trace, contract.TypeTaskSpec)[0])
	if task.RawInput != "port" {
		t.Errorf("raw_input = %q, want the user's words verbatim", task.RawInput)
	}
	reqs := r.requests(llm.R1)
	if len(reqs) != 2 || !strings.Contains(reqs[1].Chat.Messages[len(reqs[1].Chat.Messages)-1].Content, "the port of config/app.yaml") {
		t.Errorf("the answer did not reach R1")
	}
	if n := len(exchanges(t, got.trace, "user:clarify")); n != 1 {
		t.Errorf("%d user:clarify exchanges", n)
	}
}

// TestNoAnswerProceeds: without anyone to ask, R1's questions get no answer and the task
// proceeds on the words as given.
func TestNoAnswerProceeds(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, jsonText(map[string]any{"intent": "", "constraints": map[string]any{"scope": nil, "deadline": nil},
		"questions": []string{"Which port?"}}))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "port: 8080")))
	r.script(llm.R4b, merged("8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))
	got := r.run(context.Background(), "  port \n")
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	task := decode[contract.TaskSpec](t, messages(t, got.trace, contract.TypeTaskSpec)[0])
	if task.Intent != "port" || task.RawInput != "  port \n" {
		t.Errorf("task = %+v", task)
	}
}

// TestFastLoopCorrects: R4a fails a criterion, sends a CorrectionSignal, and the second
// attempt passes; the gap trajectory holds both attempts.
func TestFastLoopCorrects(t *testing.T) {
	r := newRig(t)
	r.cfg.RetryBudget = 0 // the default, 2
	r.file("config/app.yaml", "port: 8080\n")
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, done("completed", "probably 80"),
		toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("read config/app.yaml with read_file", verdict(readPort.Criteria[0], "fail", "logical", "no tool call read the file")),
		judged("", verdict(readPort.Criteria[0], "pass", "", "port: 8080")))
	r.script(llm.R4b, merged("8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	cs := messages(t, got.trace, contract.TypeCorrectionSignal)
	if len(cs) != 1 {
		t.Fatalf("%d CorrectionSignals", len(cs))
	}
	c := decode[contract.CorrectionSignal](t, cs[0])
	if c.FailedCriterion != readPort.Criteria[0] || c.FailureClass != contract.FailureLogical || c.WhatToDo == "" || c.AttemptNumber != 1 {
		t.Errorf("correction = %+v", c)
	}
	o := decode[contract.SubTaskOutcome](t, messages(t, got.trace, contract.TypeSubTaskOutcome)[0])
	if len(o.GapTrajectory) != 2 || len(o.GapTrajectory[0].FailedCriteria) != 1 || len(o.GapTrajectory[1].FailedCriteria) != 0 {
		t.Errorf("trajectory = %+v", o.GapTrajectory)
	}
	if !strings.Contains(string(r.requests(llm.R3)[1].Body), "read config/app.yaml with read_file") {
		t.Error("the correction did not reach R3")
	}
	sum := decode[contract.OutcomeSummary](t, messages(t, got.trace, contract.TypeOutcomeSummary)[0])
	if err := ggs.ValidateOutcome(&sum); err != nil {
		t.Error(err)
	}
}

type clarifyFunc func(context.Context, []string) (string, error)

func (f clarifyFunc) Clarify(ctx context.Context, qs []string) (string, error) { return f(ctx, qs) }

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

func attemptsOf(t testing.TB, x spinetrace.Exchange) int {
	t.Helper()
	b := mustJSON(x.Response)
	return decode[contract.ModelResponse](t, b).Attempts
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func mustString(v any) string { return string(mustJSON(v)) }

// TestCautionNeedsConfirmation: memory advises caution for the intent, so R3's write is
// put to the confirmer first; refused, it does not happen and the refusal is on record.
func TestCautionNeedsConfirmation(t *testing.T) {
	r := newRig(t)
	r.cfg.Clock = clock.NewStep(epoch, 3*time.Minute)
	r.cfg.Memory = &fakeMemory{intent: Calibration{Caution: []string{"writes here went wrong before"}}}
	var asked []string
	r.cfg.Caution = sandbox.ConfirmFunc(func(_ context.Context, c sandbox.Confirmation) (bool, error) {
		asked = append(asked, c.Tool+" "+c.Command)
		return false, nil
	})
	write := sub{Intent: "Write the port to port.txt", Criteria: []string{"port.txt holds 8080"}, Sequence: 1,
		Tools: []string{"write_file"}, Targets: []string{"port.txt"}}
	r.script(llm.R1, perceived("Write the port to port.txt"))
	r.script(llm.R2, planned([]string{"port.txt holds the port"}, write))
	r.script(llm.R3, toolCall("c1", "write_file", `{"path":"port.txt","content":"8080"}`), done("failed", "the write was refused"))
	r.script(llm.R4a, judged("ask for confirmation", verdict(write.Criteria[0], "fail", "environmental", "refused: not confirmed")))
	got := r.run(context.Background(), "Write the port to port.txt")
	if got.err != nil {
		t.Fatal(got.err)
	}
	if len(asked) != 1 || asked[0] != "write_file port.txt" {
		t.Errorf("confirmations asked: %q", asked)
	}
	if _, err := os.Stat(filepath.Join(r.dir, "port.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused write happened: %v", err)
	}
	xs := exchanges(t, got.trace, "tool:write_file")
	if len(xs) != 1 || !strings.Contains(xs[0].Error, "not confirmed") {
		t.Errorf("write exchanges = %+v", xs)
	}
	if !strings.Contains(string(r.requests(llm.R2)[0].Body), "writes here went wrong before") {
		t.Error("the caution did not reach the planner")
	}
}

// TestLaterStepsAreSkippedAfterAFailure: a failed step stops the steps that follow it;
// their outcomes say so, R4b's model is not called, and GGS sees every subtask.
func TestLaterStepsAreSkippedAfterAFailure(t *testing.T) {
	r := newRig(t)
	r.cfg.Clock = clock.NewStep(epoch, 3*time.Minute)
	first := sub{Intent: "Read missing.txt", Criteria: []string{"missing.txt is read"}, Sequence: 1, Tools: []string{"read_file"}}
	then := sub{Intent: "Summarise it", Criteria: []string{"a summary is given"}, Sequence: 2, Tools: []string{"read_file"}}
	r.script(llm.R1, perceived("Summarise missing.txt"))
	r.script(llm.R2, planned([]string{"a summary of missing.txt is given"}, first, then))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"missing.txt"}`), done("failed", "no such file"))
	r.script(llm.R4a, judged("find the file", verdict(first.Criteria[0], "fail", "environmental", "no such file")))
	got := r.run(context.Background(), "Summarise missing.txt")
	if got.err != nil {
		t.Fatal(got.err)
	}
	rq := decode[contract.ReplanRequest](t, messages(t, got.trace, contract.TypeReplanRequest)[0])
	if len(rq.Outcomes) != 2 || strings.Join(rq.FailedSubTasks, ",") != "sub-1,sub-2" || rq.Outcomes[1].FailureReason == nil ||
		!strings.Contains(*rq.Outcomes[1].FailureReason, "not run: it follows sequence 1") {
		t.Fatalf("replan = %+v", rq)
	}
	if err := ggs.ValidateReplan(&rq); err != nil {
		t.Error(err)
	}
	if len(r.requests(llm.R3)) != 2 || len(r.requests(llm.R4b)) != 0 {
		t.Error("a skipped step or R4b's model was called")
	}
}
