package scripted

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/taskrun"
)

// checkPipelineDemo holds a play of the pipeline demo to what it promises: GGS changes
// path once and accepts, every scripted turn is used, the real tools left the count in
// the report, the Auditor finds nothing, memory holds GGS's Megrams for both blocked
// guesses and the accept, the header records the sandbox, and a replay
// reproduces the trace byte for byte.
func checkPipelineDemo(t *testing.T, o PipelineDemoOutcome, sandboxMeta string) {
	t.Helper()
	res := o.Result
	if o.RunErr != nil || res.Final == nil || res.Final.Directive != contract.DirectiveAccept ||
		res.Final.PrevDirective != contract.DirectiveChangePath || res.Final.Replans != 1 {
		t.Fatalf("final %+v, error %v", res.Final, o.RunErr)
	}
	if len(o.Unplayed) > 0 || len(res.Findings) > 0 || len(res.AuditErrors) > 0 {
		t.Errorf("unplayed %q, findings %+v, audit errors %q", o.Unplayed, res.Findings, res.AuditErrors)
	}
	if !o.ReportOK || o.Report != "3\n" {
		t.Errorf("report.txt: %q (written: %v)", o.Report, o.ReportOK)
	}
	var got []string
	for _, r := range o.Megrams {
		if r.Origin != memory.OriginGGS {
			t.Errorf("a Megram from %s: %+v", r.Origin, r)
		}
		got = append(got, r.State+" "+r.Space+" "+r.Entity)
	}
	slices.Sort(got)
	want := []string{"accept intent.full:count_the_lines_that_contain_todo_in_the_files_under-d88a86c2 env:local",
		"accept intent:count_the_lines env:local",
		"change_path tool:read_file path:src/TODO", "change_path tool:read_file path:src/TODO.md"}
	if !slices.Equal(got, want) {
		t.Errorf("memory holds %q, want %q", got, want)
	}
	trace, err := os.ReadFile(res.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{`"sandbox":"` + sandboxMeta, `"models":"R1=scripted-R1 `, `"output":"src/main.go:2\nsrc/util.go:1\n"`} {
		if !bytes.Contains(trace, []byte(s)) {
			t.Errorf("the trace lacks %s", s)
		}
	}
	rs, err := taskrun.LoadRules("")
	if err != nil {
		t.Fatal(err)
	}
	tracetest.AssertReplays(t, trace, rs)
}

func TestPipelineDemo(t *testing.T) {
	if _, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{}); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	fellBack := false
	o, err := NewPipelineDemo().Run(context.Background(), PipelineDemoRun{
		TracePath: filepath.Join(t.TempDir(), "demo.jsonl"), OnFallback: func(string) { fellBack = true }})
	if err != nil {
		t.Fatal(err)
	}
	if fellBack {
		t.Error("the demo fell back to no sandbox where bubblewrap works")
	}
	checkPipelineDemo(t, o, "bubblewrap")
}

// TestPipelineDemoWithoutBubblewrap: where bwrap cannot be found the demo still runs, with
// the tools unconfined, says why once, and the trace header records it.
func TestPipelineDemoWithoutBubblewrap(t *testing.T) {
	grep, err := exec.LookPath("grep")
	if err != nil {
		t.Skip(err)
	}
	bin := t.TempDir() // a PATH with grep, for the demo's shell call, and no bwrap
	if err := os.Symlink(grep, filepath.Join(bin, "grep")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	var why []string
	var warnings []string
	o, err := NewPipelineDemo().Run(context.Background(), PipelineDemoRun{
		TracePath:  filepath.Join(t.TempDir(), "demo.jsonl"),
		OnFallback: func(s string) { why = append(why, s) },
		Warn:       func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(why) != 1 || !strings.Contains(why[0], "bubblewrap (bwrap) is not installed") {
		t.Errorf("fallback said %q", why)
	}
	for _, w := range warnings {
		if strings.Contains(w, "--no-sandbox:") {
			t.Errorf("a warning names a flag the user did not give: %s", w)
		}
	}
	checkPipelineDemo(t, o, "none")
}
