package scripted

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/taskrun"
)

// TestAnyTaskRunsAnyTask: `spine worker --demo`'s stand-in takes any task text to an
// accepted result on the demo's project, writes a report from what the tools read,
// names itself in the trace header, and its trace replays byte for byte.
func TestAnyTaskRunsAnyTask(t *testing.T) {
	rs := loadGGS(t)
	for _, tc := range []struct {
		task   string
		report []string // lines the report must hold
	}{
		{"summarise the TODOs in this repository", []string{
			"Task: summarise the TODOs in this repository", `Lines that mention "todo":`,
			"- src/main.go:5: // TODO: read the greeting from a flag", "- src/util.go:4: // TODO: translate it",
			"- README.md:3: A tiny project for the spine demo. TODO: a real README (not under src/, so not counted).",
			"Files read (3):", "- src/main.go: 9 line(s)"}},
		{"Count the lines that contain TODO in the files under src/ and write the count to report.txt", []string{
			`Lines that mention "line", "contain", "todo", "under", "src", "txt":`}},
		{"what does main print?", []string{`Lines that mention "does", "main", "print":`,
			"- src/main.go:6: func main() {"}},
		{"x", []string{"Lines that mention the task's words (it has none to look for):", "- none"}},
	} {
		t.Run(tc.task, func(t *testing.T) {
			dir := t.TempDir()
			work := filepath.Join(dir, "work")
			cfg, err := DemoTaskConfig(work, rs, noBubblewrap())
			if err != nil {
				t.Fatal(err)
			}
			cfg.Task, cfg.Workdir, cfg.TracePath = tc.task, work, filepath.Join(dir, "trace.jsonl")
			res, err := taskrun.RunTask(context.Background(), cfg)
			if err != nil || res.Final == nil || res.Final.Directive != contract.DirectiveAccept {
				t.Fatalf("final %+v, error %v", res.Final, err)
			}
			if len(res.Findings) > 0 {
				t.Errorf("the Auditor found %+v", res.Findings)
			}
			report, err := os.ReadFile(filepath.Join(work, "report.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range tc.report {
				if !strings.Contains(string(report), want+"\n") {
					t.Errorf("report.md lacks %q:\n%s", want, report)
				}
			}
			trace, err := os.ReadFile(res.TracePath)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []string{`"models":"R1=standin-any-task-R1 `, `"standin":"scripted.AnyTask: `} {
				if !bytes.Contains(trace, []byte(s)) {
					t.Errorf("the trace header lacks %s", s)
				}
			}
			tracetest.AssertReplays(t, trace, rs)
			checkRepliesFromRequests(t, trace)
		})
	}
}

// checkRepliesFromRequests asks a fresh stand-in each recorded model request alone, in
// reverse order: every reply is the recorded one, so a run resumed at any call gets the
// replies a whole run gets.
func checkRepliesFromRequests(t *testing.T, trace []byte) {
	t.Helper()
	type call struct {
		req  contract.ModelRequest
		resp contract.ModelResponse
	}
	var calls []call
	sc := bufio.NewScanner(bytes.NewReader(trace))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e struct { // an exchange event's body is inline
			Kind     string                 `json:"kind"`
			Name     string                 `json:"name"`
			Request  contract.ModelRequest  `json:"request"`
			Response contract.ModelResponse `json:"response"`
		}
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Kind == "exchange" && strings.HasPrefix(e.Name, "llm:") {
			calls = append(calls, call{e.Request, e.Response})
		}
	}
	if len(calls) < 5 {
		t.Fatalf("the trace holds %d model call(s), want one of each role at least", len(calls))
	}
	for i := len(calls) - 1; i >= 0; i-- {
		got, err := AnyTask{}.Complete(context.Background(), calls[i].req)
		if err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
		want := calls[i].resp
		if got.Content != want.Content || !reflect.DeepEqual(got.ToolCalls, want.ToolCalls) {
			t.Errorf("call %d (%s) asked alone: %q %+v, recorded %q %+v", i+1, calls[i].req.Model, got.Content, got.ToolCalls, want.Content, want.ToolCalls)
		}
	}
}

// noBubblewrap is true where bubblewrap cannot run (the stand-in's calls then run
// unconfined); CI must have it.
func noBubblewrap() bool {
	_, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
	return err != nil && os.Getenv("CI") == ""
}
