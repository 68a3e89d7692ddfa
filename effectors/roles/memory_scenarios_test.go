package roles

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/spine/trace"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// fakeMemory is a Calibrator over fixed verdicts: the intent's text entries when the
// intent is asked, and each verdict whose tool (Target "") or tool × target is asked. It
// keeps every query.
type fakeMemory struct {
	intent   Calibration
	verdicts []Verdict

	mu      sync.Mutex
	queries []contract.MemoryQuery
}

func (m *fakeMemory) Calibrate(_ context.Context, q contract.MemoryQuery) (Calibration, error) {
	m.mu.Lock()
	m.queries = append(m.queries, q)
	m.mu.Unlock()
	var cal Calibration
	if q.Intent != "" {
		cal = Calibration{Avoid: m.intent.Avoid, Exploit: m.intent.Exploit, Caution: m.intent.Caution}
	}
	for _, v := range m.verdicts {
		asked := v.Target == "" && contains(q.Tools, v.Tool)
		for _, tt := range q.Targets {
			asked = asked || v.Target != "" && tt.Tool == v.Tool && sameTarget(v.Tool, tt.Target, v.Target)
		}
		if asked {
			cal.Verdicts = append(cal.Verdicts, v)
		}
	}
	return cal, nil
}

// avoidService is memory's Avoid on reading config/service.yaml, as the adapter words it.
var avoidService = Verdict{Action: contract.ActionAvoid, Tool: "read_file", Target: "config/service.yaml",
	Pair: "tool:read_file × path:config/service.yaml", Decision: -2.55,
	Text: "read_file on config/service.yaml: failed in 3 earlier tasks (change_approach), M_dec −2.55 → avoid"}

const citesService = "which memory says to avoid (tool:read_file × path:config/service.yaml, M_dec −2.55)"

// TestMemoryAvoidIsRejected: memory says avoid write_file as a tool; a plan that writes
// is refused before dispatch, citing the pair and its M_dec. The intent-level Avoid is in
// the prompt as MUST NOT but, not being checkable, is no violation.
func TestMemoryAvoidIsRejected(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.cfg.Memory = &fakeMemory{intent: Calibration{Avoid: []string{"rewriting configuration files broke deployments"},
		Exploit: []string{"read the configuration directly"}},
		verdicts: []Verdict{{Action: contract.ActionAvoid, Tool: "write_file", Pair: "tool:write_file × env:local", Decision: -1.7,
			Text: "the tool write_file: failed in 2 earlier tasks (change_approach), M_dec −1.70 → avoid"}}}
	writes := sub{Intent: "Write the port into port.txt", Criteria: []string{"port.txt holds the port"}, Sequence: 1,
		Tools: []string{"write_file", "read_file"}, Targets: []string{"port.txt"}}
	r.script(llm.R2, planned(portCriteria, writes))
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	reqs := r.requests(llm.R2)
	if len(reqs) != 2 {
		t.Fatalf("R2 called %d times, want 2", len(reqs))
	}
	first := reqs[0].Chat.Messages[1].Content
	for _, want := range []string{"the tool write_file: failed in 2 earlier tasks (change_approach), M_dec −1.70 → avoid",
		"rewriting configuration files broke deployments (memory says MUST NOT)", `"should_prefer":["read the configuration directly"]`} {
		if !strings.Contains(first, want) {
			t.Errorf("the planner's request lacks %q: %s", want, first)
		}
	}
	msgs := reqs[1].Chat.Messages
	want := `The plan validator rejected this plan:
- subtask 1 ("Write the port into port.txt") uses the tool write_file, which memory says to avoid (tool:write_file × env:local, M_dec −1.70), refused by rule memory_avoid_refused
Answer`
	if !strings.HasPrefix(msgs[len(msgs)-1].Content, want) {
		t.Errorf("re-ask = %s\nwant the prefix\n%s", msgs[len(msgs)-1].Content, want)
	}
	checks := exchanges(t, got.trace, "check:plan")
	if len(checks) != 2 || !strings.Contains(string(mustJSON(checks[0].Response)), "tool:write_file × env:local") ||
		string(mustJSON(checks[1].Response)) != `{"violations":[]}` {
		t.Errorf("plan checks = %+v", checks)
	}
	// Asked in OBSERVE (every tool), once before the plan (intent, every tool); the first
	// plan's port.txt and the second's config/app.yaml each once before their check.
	if n := len(exchanges(t, got.trace, "memory:calibrate")); n != 4 {
		t.Errorf("%d memory:calibrate exchanges, want 4", n)
	}
}

// TestMemoryAvoidOnAPlannedTarget: nothing memory was asked before the plan names
// config/service.yaml; at validation it is asked about the plan's targets, refuses the
// plan citing the pair, and the next plan reads the other file.
func TestMemoryAvoidOnAPlannedTarget(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	mem := &fakeMemory{verdicts: []Verdict{avoidService}}
	r.cfg.Memory = mem
	readService := sub{Intent: "Read config/service.yaml", Criteria: []string{"the port is read"}, Sequence: 1,
		Tools: []string{"read_file"}, Targets: []string{"./config/service.yaml"}}
	r.script(llm.R2, planned(portCriteria, readService))
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	checks := exchanges(t, got.trace, "check:plan")
	want := `{"violations":["subtask 1 (\"Read config/service.yaml\") points read_file at \"./config/service.yaml\", ` + citesService + `"]}`
	if len(checks) != 2 || string(mustJSON(checks[0].Response)) != want {
		t.Fatalf("plan checks = %s, want first %s", mustJSON(checks), want)
	}
	var asked []string
	for _, q := range mem.queries {
		b, _ := json.Marshal(q)
		asked = append(asked, string(b))
	}
	wantAsked := []string{
		`{"tools":["shell","read_file","write_file","list_files"],"targets":[]}`, // OBSERVE
		`{"intent":"Find the port that config/app.yaml sets","tools":["shell","read_file","write_file","list_files"],"targets":[]}`,
		`{"tools":[],"targets":[{"tool":"read_file","target":"./config/service.yaml"}]}`,
		`{"tools":[],"targets":[{"tool":"read_file","target":"config/app.yaml"}]}`,
	}
	if strings.Join(asked, "\n") != strings.Join(wantAsked, "\n") {
		t.Errorf("queries\n%s\nwant\n%s", strings.Join(asked, "\n"), strings.Join(wantAsked, "\n"))
	}
}

// TestExecutorRefusesATargetMemoryAvoids: the plan reads config/app.yaml, but R3 reaches
// for config/service.yaml; the executor asks memory about that target and refuses the
// call, citing the pair, and the file is never read.
func TestExecutorRefusesATargetMemoryAvoids(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.file("config/service.yaml", "port: 9090\n")
	r.cfg.Memory = &fakeMemory{verdicts: []Verdict{avoidService}}
	r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
	r.script(llm.R2, planned(portCriteria, readPort))
	r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/service.yaml"}`),
		toolCall("c2", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
	r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
	r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "the subtask read port: 8080")))
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	xs := exchanges(t, got.trace, "tool:read_file")
	want := "the tool read_file on config/service.yaml, " + citesService
	if len(xs) != 2 || xs[0].Error != want || xs[1].Error != "" {
		t.Fatalf("read_file exchanges: %s\nwant the first refused: %s", mustJSON(xs), want)
	}
	// R3 read the refusal back as its tool result.
	msgs := r.requests(llm.R3)[1].Chat.Messages
	if last := msgs[len(msgs)-1]; last.Content != "refused: "+want {
		t.Errorf("R3 read %q", last.Content)
	}
}

// TestCautionOnATargetAsksFirst: memory advises caution on one target; R3's call on it
// is put to the confirmer with the pair cited, and goes ahead once confirmed.
func TestCautionOnATargetAsksFirst(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	caution := Verdict{Action: contract.ActionCaution, Tool: "read_file", Target: "config/app.yaml",
		Pair: "tool:read_file × path:config/app.yaml", Decision: 0,
		Text: "read_file on config/app.yaml: went nowhere in 2 earlier tasks (change_path), M_dec +0.00 → caution"}
	r.cfg.Memory = &fakeMemory{verdicts: []Verdict{caution}}
	var asked []string
	r.cfg.Caution = sandbox.ConfirmFunc(func(_ context.Context, c sandbox.Confirmation) (bool, error) {
		asked = append(asked, c.Tool+" "+c.Command+": "+strings.Join(c.Reasons, " | "))
		return true, nil
	})
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	want := "read_file config/app.yaml: memory advises caution for the tool read_file on config/app.yaml (tool:read_file × path:config/app.yaml, M_dec +0.00) | " + caution.Text
	if len(asked) != 1 || asked[0] != want {
		t.Fatalf("confirmations asked: %q\nwant %q", asked, want)
	}
	if xs := exchanges(t, got.trace, "tool:read_file"); len(xs) != 1 || xs[0].Error != "" {
		t.Errorf("read exchanges = %s", mustJSON(xs))
	}
	// Asked about at validation, the caution reaches the executor's prompt.
	if !strings.Contains(string(r.requests(llm.R3)[0].Body), "went nowhere in 2 earlier tasks") {
		t.Error("the caution did not reach the executor")
	}
}

// TestMemoryAnswersTravelOnTheBus: every read of memory is R2's MemoryQuery to R5 and
// R5's MemoryAnswer to R2, in the trace and on the bus the Auditor taps, so the Auditor
// sees what memory told the planner: the round's answer carries the intent's Avoid and
// the verdict on the plan's tool. The same messages with an answer sent to R3 instead are a
// boundary violation.
func TestMemoryAnswersTravelOnTheBus(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	preferRead := Verdict{Action: contract.ActionExploit, Tool: "read_file", Pair: "tool:read_file × env:local", Decision: 1.6,
		Text: "the tool read_file: worked in 2 earlier tasks (success), M_dec +1.60 → prefer"}
	mem := &fakeMemory{intent: Calibration{Avoid: []string{"rewriting configuration files broke deployments"}},
		verdicts: []Verdict{preferRead}}
	r.cfg.Memory = mem
	scriptAccept(r)
	got := r.run(context.Background(), portTask) // the rig audits the live trace: no finding
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}

	tf, err := spinetrace.Read("live", bytes.NewReader(got.trace))
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := bus.FromTrace("live", tf)
	if err != nil {
		t.Fatal(err)
	}
	var reads []trace.Message
	for _, m := range msgs {
		if m.Type == contract.TypeMemoryQuery || m.Type == contract.TypeMemoryAnswer {
			reads = append(reads, m)
		}
	}
	if len(mem.queries) == 0 || len(reads) != 2*len(mem.queries) {
		t.Fatalf("%d memory messages for %d reads of memory, want a query and an answer each", len(reads), len(mem.queries))
	}
	for i, m := range reads {
		from, to, typ := "R2", "R5", contract.TypeMemoryQuery
		if i%2 == 1 {
			from, to, typ = "R5", "R2", contract.TypeMemoryAnswer
		}
		if m.From != from || m.To != to || m.Type != typ || m.TaskID != r.taskID {
			t.Errorf("memory message %d: %s %s → %s (task %q); want %s %s → %s", i, m.Type, m.From, m.To, m.TaskID, typ, from, to)
		}
		if i%2 == 0 {
			q := decode[contract.MemoryQuery](t, m.Payload)
			if b, _ := json.Marshal(q); string(b) != string(mustJSON(mem.queries[i/2])) {
				t.Errorf("query %d on the bus %s, memory was asked %s", i/2, b, mustJSON(mem.queries[i/2]))
			}
		}
	}
	// OBSERVE reads first, without the intent (its pairs become facts); then R2's read
	// for the round, with it.
	if len(reads) < 4 {
		t.Fatalf("%d memory messages, want OBSERVE's read and the round's", len(reads))
	}
	observed := decode[contract.MemoryAnswer](t, reads[1].Payload)
	if len(observed.Avoid) != 0 || len(observed.Verdicts) != 1 || observed.Verdicts[0] != contract.MemoryVerdict(preferRead) {
		t.Errorf("OBSERVE's answer %+v, want the verdict on read_file alone", observed)
	}
	first := decode[contract.MemoryAnswer](t, reads[3].Payload)
	if len(first.Avoid) != 1 || len(first.Verdicts) != 1 || first.Verdicts[0] != contract.MemoryVerdict(preferRead) {
		t.Errorf("the round's answer %+v, want the intent's Avoid and the verdict on read_file", first)
	}

	// The same stream with the first answer misrouted to R3.
	a, err := audit.New(audit.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	var findings []contract.AuditReport
	for _, m := range msgs {
		if m.Seq == reads[3].Seq {
			m.To = "R3"
		}
		findings = append(findings, a.Observe(m)...)
	}
	findings = append(findings, a.End()...)
	var flagged bool
	for _, f := range findings {
		if f.Kind == audit.KindBoundaryViolation && strings.Contains(f.Message, "R5 sent a MemoryAnswer to R3; it goes to R2") {
			flagged = true
		}
	}
	if !flagged {
		t.Errorf("a misrouted memory answer was not flagged: %+v", findings)
	}
}

// brokenMemory fails every read.
type brokenMemory struct{}

func (brokenMemory) Calibrate(context.Context, contract.MemoryQuery) (Calibration, error) {
	return Calibration{}, errors.New("leveldb: closed")
}

// TestMemoryFailureIsAnsweredOnTheBus: a store that cannot be read still answers R2,
// with the error, and the round goes on without memory.
func TestMemoryFailureIsAnsweredOnTheBus(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	r.cfg.Memory = brokenMemory{}
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	answers := messages(t, got.trace, contract.TypeMemoryAnswer)
	if len(answers) == 0 {
		t.Fatal("no MemoryAnswer in the trace")
	}
	for _, raw := range answers {
		if a := decode[contract.MemoryAnswer](t, raw); a.Error != "leveldb: closed" || len(a.Avoid)+len(a.Verdicts) != 0 {
			t.Errorf("answer %+v, want the store's error and nothing else", a)
		}
	}
	if xs := exchanges(t, got.trace, "memory:calibrate"); len(xs) != len(answers) || xs[0].Error != "leveldb: closed" {
		t.Errorf("%d memory:calibrate exchanges for %d answers (first %+v)", len(xs), len(answers), xs)
	}
}
