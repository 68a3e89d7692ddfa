package roles

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// firing is one memory_* rule firing as the trace shows it, with the pair it ruled on.
type firing struct {
	rule, pair, policy string
}

// memoryFirings reads the trace's rule firings on memory pairs: each rule_fired event of
// a memory_* rule, with the memory_pair fact in working memory at that point.
func memoryFirings(t *testing.T, tr []byte) []firing {
	t.Helper()
	var out []firing
	var pair, policy string
	for _, e := range readEvents(t, tr) {
		switch e.Kind {
		case spinetrace.KindFactAsserted, spinetrace.KindFactUpdated:
			var f struct {
				Fact struct {
					Kind    string         `json:"kind"`
					Payload map[string]any `json:"payload"`
				} `json:"fact"`
			}
			if json.Unmarshal(e.Raw, &f) == nil && f.Fact.Kind == ggs.MemoryKind {
				pair = f.Fact.Payload["space"].(string) + " × " + f.Fact.Payload["entity"].(string)
				policy, _ = f.Fact.Payload["policy"].(string)
			}
		case spinetrace.KindRuleFired:
			var f struct {
				Rule string `json:"rule"`
			}
			if json.Unmarshal(e.Raw, &f) == nil && strings.HasPrefix(f.Rule, "memory_") {
				out = append(out, firing{f.Rule, pair, policy})
			}
		}
	}
	return out
}

// TestObserveRefusesAnAvoidedToolByRule: memory holds an Avoid on the tool write_file.
// OBSERVE hands the pair to the rules as the memory_pair fact before the first round, the
// rule memory_avoid_refused rules on it, and R2's plan that writes is refused naming
// that rule; the next plan runs. The trace shows the fact, the firing and the violation,
// and replays byte for byte (rig.run checks).
func TestObserveRefusesAnAvoidedToolByRule(t *testing.T) {
	r := newRig(t)
	r.file("config/app.yaml", "port: 8080\n")
	avoid := Verdict{Action: contract.ActionAvoid, Tool: "write_file", Pair: "tool:write_file × env:local", Decision: -1.7,
		Attention: 2.1, Text: "the tool write_file: failed in 2 earlier tasks (change_approach), M_dec −1.70 → avoid"}
	exploit := Verdict{Action: contract.ActionExploit, Tool: "read_file", Pair: "tool:read_file × env:local", Decision: 0.9,
		Attention: 0.9, Text: "the tool read_file: worked in 1 earlier task, M_dec +0.90 → prefer"}
	r.cfg.Memory = &fakeMemory{verdicts: []Verdict{avoid, exploit}}
	writes := sub{Intent: "Write the port into port.txt", Criteria: []string{"port.txt holds the port"}, Sequence: 1,
		Tools: []string{"write_file", "read_file"}, Targets: []string{"port.txt"}}
	r.script(llm.R2, planned(portCriteria, writes))
	scriptAccept(r)
	got := r.run(context.Background(), portTask)
	if got.err != nil || finalDirective(got) != contract.DirectiveAccept {
		t.Fatalf("err %v, final %s", got.err, finalDirective(got))
	}
	want := []firing{{"memory_avoid_refused", "tool:write_file × env:local", ""},
		{"memory_allowed", "tool:read_file × env:local", ""}}
	if got := memoryFirings(t, got.trace); len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("memory firings %+v, want %+v", got, want)
	}
	checks := exchanges(t, got.trace, "check:plan")
	if len(checks) != 2 || !strings.Contains(string(mustJSON(checks[0].Response)),
		"uses the tool write_file, which memory says to avoid (tool:write_file × env:local, M_dec −1.70), refused by rule memory_avoid_refused") {
		t.Fatalf("plan checks = %s", mustJSON(checks))
	}
	// The fact carries the potentials as memory read them.
	if !bytes.Contains(got.trace, []byte(`"kind":"memory_pair"`)) || !bytes.Contains(got.trace, []byte(`"m_att":2.1,"m_dec":-1.7`)) {
		t.Error("the trace lacks the memory_pair fact with the pair's potentials")
	}
	// The observe call that read memory is journalled with the read nested in it.
	if n := len(exchanges(t, got.trace, "memory:calibrate")); n != 4 {
		t.Errorf("%d memory:calibrate exchanges, want 4 (observe, the round's, each plan's targets)", n)
	}
}

// withCaution returns the shipped GGS rules with params.caution set to policy.
func withCaution(t *testing.T, policy string) *ruleset.RuleSet {
	t.Helper()
	src, err := rules.FS.ReadFile("ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	edited := bytes.Replace(src, []byte("\n  caution: refuse\n"), []byte("\n  caution: "+policy+"\n"), 1)
	if bytes.Equal(edited, src) && policy != "refuse" {
		t.Fatal("rules/ggs.yaml has no `caution: refuse` param line")
	}
	rs, err := engine.LoadRules("ggs.yaml", edited)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestObserveCautionPolicyIsARule: memory advises Caution on read_file. With the rules'
// caution param at refuse the call is refused by memory_caution_refused (no one is there
// to confirm it); at allow it is made (memory_allowed); at log it is made and the
// ruling is recorded beside it (memory_caution_logged).
func TestObserveCautionPolicyIsARule(t *testing.T) {
	caution := Verdict{Action: contract.ActionCaution, Tool: "read_file", Pair: "tool:read_file × env:local", Decision: 0.05,
		Attention: 0.8, Text: "the tool read_file: went nowhere in 2 earlier tasks (change_path), M_dec +0.05 → caution"}
	for _, tc := range []struct {
		policy, rule, ruling string
		read                 bool
	}{
		{"refuse", "memory_caution_refused", ggs.RulingRefuse, false},
		{"allow", "memory_allowed", ggs.RulingAllow, true},
		{"log", "memory_caution_logged", ggs.RulingLog, true},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			r := newRig(t)
			r.rs = withCaution(t, tc.policy)
			r.file("config/app.yaml", "port: 8080\n")
			r.cfg.Memory = &fakeMemory{verdicts: []Verdict{caution}}
			r.script(llm.R1, perceived("Find the port that config/app.yaml sets"))
			r.script(llm.R2, planned(portCriteria, readPort))
			if tc.read {
				r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("completed", "port: 8080"))
				r.script(llm.R4a, judged("", verdict(readPort.Criteria[0], "pass", "", "read_file:config/app.yaml → port: 8080")))
				r.script(llm.R4b, merged("config/app.yaml sets port 8080", "8080", verdict(portCriteria[0], "pass", "", "port: 8080")))
			} else {
				// Refused, the executor reports it could not read; R4a fails the criterion
				// and the round ends; GGS's rules take it from there (the budget is
				// spent at once under this clock, so the task is abandoned).
				r.cfg.Clock = clock.NewStep(epoch, 10*time.Minute)
				r.script(llm.R3, toolCall("c1", "read_file", `{"path":"config/app.yaml"}`), done("failed", "the read was refused"))
				r.script(llm.R4a, judged("read it once confirmed", verdict(readPort.Criteria[0], "fail", "environmental", "refused")))
			}
			got := r.run(context.Background(), portTask)
			if got.err != nil {
				t.Fatal(got.err)
			}
			fs := memoryFirings(t, got.trace)
			// The rules' param decides: the run set no policy of its own.
			if len(fs) == 0 || fs[0] != (firing{tc.rule, caution.Pair, ""}) {
				t.Fatalf("memory firings %+v, want %s on %s under %s first", fs, tc.rule, caution.Pair, tc.policy)
			}
			checks := exchanges(t, got.trace, "check:caution")
			if len(checks) != 1 {
				t.Fatalf("%d check:caution exchanges, want 1", len(checks))
			}
			if resp := string(mustJSON(checks[0].Response)); !strings.Contains(resp, `"rule":"`+tc.rule+`"`) || !strings.Contains(resp, `"ruling":"`+tc.ruling+`"`) {
				t.Errorf("check:caution = %s", resp)
			}
			reads := exchanges(t, got.trace, "tool:read_file")
			if len(reads) != 1 {
				t.Fatalf("%d read_file exchanges", len(reads))
			}
			refused := strings.Contains(reads[0].Error, "refused by rule memory_caution_refused")
			if refused == tc.read {
				t.Errorf("read_file exchange error %q, want the call made: %v", reads[0].Error, tc.read)
			}
			if tc.read && finalDirective(got) != contract.DirectiveAccept {
				t.Errorf("final %s", finalDirective(got))
			}
			if tc.policy == "refuse" {
				assertWhatIfAllows(t, got.trace, withCaution(t, "allow"))
			}
		})
	}
}

// assertWhatIfAllows re-decides a run recorded under caution refuse with rules whose
// caution param is allow: the refusal becomes memory_allowed. With the rule
// edited away instead, the round's own rule wins that cycle.
func assertWhatIfAllows(t *testing.T, tr []byte, allow *ruleset.RuleSet) {
	t.Helper()
	tf, err := spinetrace.Read("live", bytes.NewReader(tr))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.NewRecording("live", tf)
	if err != nil {
		t.Fatal(err)
	}
	res, err := analysis.WhatIf(rec, allow)
	if err != nil {
		t.Fatal(err)
	}
	if ch := res.Changes(); len(ch) != 1 || ch[0].Recorded != "memory_caution_refused" || ch[0].Edited != "memory_allowed" ||
		ch[0].EditedObjective != ggs.RulingAllow {
		t.Errorf("what-if changes %+v, want memory_caution_refused re-decided to memory_allowed", ch)
	}
	src := bytes.Replace([]byte(allow.Source()), []byte(`memory_pair.policy == "allow" || memory_pair.policy == "" && params.caution == "allow"`),
		[]byte(`memory_pair.policy == "never"`), 1)
	edited, err := engine.LoadRules("ggs.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if res, err = analysis.WhatIf(rec, edited); err != nil {
		t.Fatal(err)
	}
	ch := res.Changes()
	// With no memory_* rule for the pair, the round's own rule wins that cycle.
	if len(ch) != 1 || ch[0].Recorded != "memory_caution_refused" || ch[0].Edited != "plan_first_round" {
		t.Errorf("what-if changes %+v, want memory_caution_refused re-decided to plan_first_round", ch)
	}
}
