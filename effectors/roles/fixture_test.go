package roles

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

var rewrite = flag.Bool("rewrite", false, "re-record fixtures/pipeline from the scripted run")

// fixturePath is the recorded multi-round run shipped in fixtures/.
const fixturePath = "../../fixtures/pipeline/change_path_then_accept.trace.jsonl"

// recordFixture plays the fixture's task against the scripted per-role servers: round 1
// reads a settings file that is not there (twice: R4a corrects once), GGS directs
// change_path with both guesses blocked; round 2 lists config/ and reads the file that is
// there, and R4b accepts.
func recordFixture(t *testing.T) []byte {
	r := newRig(t)
	r.cfg.RetryBudget = 1
	r.cfg.IDs = &engine.SeqIDs{Prefix: "st"}
	r.taskID = "port-lookup"
	r.file("config/service.yaml", "name: api\nlisten: 8443\n")
	r.file("config/README", "The service settings live in service.yaml.\n")

	criteria := []string{"the answer gives the port the service listens on", "the port is taken from a file under config/"}
	readSettings := sub{Intent: "Read config/settings.yaml and report the port the service listens on",
		Criteria: []string{"the port is read from the service's settings file"}, Sequence: 1,
		Tools: []string{"read_file"}, Targets: []string{"config/settings.yaml"},
		Context: "The user says the settings are somewhere under config/."}
	list := sub{Intent: "List the files under config/", Criteria: []string{"the listing shows the files under config/"},
		Sequence: 1, Tools: []string{"list_files"}, Targets: []string{"config"}}
	readService := sub{Intent: "Read config/service.yaml and report the port the service listens on",
		Criteria: []string{"the port is read from the service's settings file"}, Sequence: 2,
		Tools: []string{"read_file"}, Targets: []string{"config/service.yaml"},
		Context: "config/settings.yaml and config/settings.yml do not exist; config/README points to service.yaml."}

	r.script(llm.R1, jsonText(map[string]any{"intent": "Find the port the service listens on, from its settings under config/",
		"constraints": map[string]any{"scope": "config/", "deadline": nil}, "questions": []string{}}))
	r.script(llm.R2, planned(criteria, readSettings), planned(criteria, list, readService))
	r.script(llm.R3,
		toolCall("call-1", "read_file", `{"path":"config/settings.yaml"}`),
		done("failed", "config/settings.yaml does not exist"),
		toolCall("call-2", "read_file", `{"path":"config/settings.yml"}`),
		done("failed", "config/settings.yml does not exist either"),
		toolCall("call-3", "list_files", `{"path":"config"}`),
		done("completed", []string{"config/README", "config/service.yaml"}),
		toolCall("call-4", "read_file", `{"path":"config/service.yaml"}`),
		done("completed", map[string]any{"file": "config/service.yaml", "listen": 8443}))
	r.script(llm.R4a,
		judged("try the .yml spelling of the file name", verdict(readSettings.Criteria[0], "fail", "environmental",
			"read_file:config/settings.yaml → refused: no such file")),
		judged("the file has another name; the plan must look elsewhere", verdict(readSettings.Criteria[0], "fail", "environmental",
			"read_file:config/settings.yml → refused: no such file")),
		judged("", verdict(list.Criteria[0], "pass", "", "list_files:config → config/README config/service.yaml")),
		judged("", verdict(readService.Criteria[0], "pass", "", "read_file:config/service.yaml → name: api listen: 8443")))
	r.script(llm.R4b, merged("The service listens on port 8443 (config/service.yaml).", map[string]any{"port": 8443, "source": "config/service.yaml"},
		verdict(criteria[0], "pass", "", "listen: 8443"), verdict(criteria[1], "pass", "", "read_file:config/service.yaml")))

	p, err := New(r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := p.Begin(r.taskID, "What port does the service listen on? Its settings are somewhere under config/."); err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	res, err := runTask(ctx, p, r.rs, map[string]string{"fixture": "pipeline/change_path_then_accept",
		"recorded_against": "scripted OpenAI-compatible server (llmtest); no real model"},
		engine.WithTrace(sink), engine.WithClock(clock.NewStep(epoch, time.Millisecond)),
		engine.WithRunID("pipeline_change_path_then_accept"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Final == nil || res.Final.Directive != contract.DirectiveAccept || res.Final.Replans != 1 || res.Final.PrevDirective != contract.DirectiveChangePath {
		t.Fatalf("final = %+v", res.Final)
	}
	for role, s := range r.srv {
		if s.Pending() > 0 {
			t.Fatalf("%s: %d scripted repl(ies) not used", role, s.Pending())
		}
	}
	if bytes.Contains(sink.Bytes(), []byte(testKey)) || bytes.Contains(sink.Bytes(), []byte(r.dir)) {
		t.Fatal("the trace holds the key or the temporary directory")
	}
	return sink.Bytes()
}

// TestPipelineFixture: the shipped multi-round run is what the scripted run records, byte
// for byte (a live run is deterministic given the same answers), and it replays.
func TestPipelineFixture(t *testing.T) {
	got := recordFixture(t)
	if *rewrite {
		if err := os.MkdirAll(filepath.Dir(fixturePath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixturePath, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(fixturePath)
	if err != nil {
		t.Fatalf("%v (record it with go test ./effectors/roles -run TestPipelineFixture -rewrite)", err)
	}
	if d := replay.CompareTraces(want, got, 0); d != nil {
		t.Fatalf("the scripted run differs from %s: %s", fixturePath, d)
	}
	tracetest.AssertReplays(t, want, newRig(t).rs)
}
