package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// writeScript is a one-round task whose subtask writes a file with write_file, reads it
// back with the shell, and answers: the round's later calls depend on what the first
// one wrote.
var writeScript = map[string][]llmtest.Reply{
	"m-R1": {fmPerceived},
	"m-R2": {fmJSON(map[string]any{"task_criteria": []string{fmTaskCrit}, "subtasks": []map[string]any{{
		"intent": "Write the port to out/port.txt and print it", "success_criteria": []string{fmCriterion}, "context": "",
		"sequence": 1, "tools": []string{"write_file", "shell"}, "targets": []string{"out/port.txt", "cat out/port.txt"}}}})},
	"m-R3": {fmCall("w1", "write_file", `{"path":"out/port.txt","content":"port: 8080\n"}`),
		fmCall("s1", "shell", `{"command":"cat out/port.txt"}`), fmDone},
	"m-R4a": {fmPassed},
	"m-R4b": {fmMerged},
}

// filesIn is every regular file under dir with its content, by slash path.
func filesIn(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestResumeAfterKillAfterWrite kills spine run with SIGKILL right after its write_file
// call, in the middle of the round (at R3's next model request, the call's line and its
// snapshot's written), then rolls the work dir back (the written file removed) and edits
// another file, and resumes: the resume restores the snapshot taken right after the
// call, serves the call without making it again, and ends with the uninterrupted run's
// FinalResult and work dir, asking the endpoint nothing whose answer the trace holds.
func TestResumeAfterKillAfterWrite(t *testing.T) {
	bin, err := exec.LookPath("spine")
	if err != nil {
		t.Skip("no spine command on PATH:", err)
	}
	dir, work, cfg, e := resumeSetup(t, writeScript)
	full := filepath.Join(dir, "full.trace.jsonl")
	_, err, out := runUntil(t, bin, []string{"run", "--json", "--config", cfg, "--workdir", work, "--trace", full, fmTask}, resumeEnv(dir), e, nil)
	want, wantFiles := finalOf(out), filesIn(t, work)
	if err != nil || !strings.Contains(want, "accept") || wantFiles["out/port.txt"] != "port: 8080\n" {
		t.Fatalf("the uninterrupted run: %v, final %s, files %v\n%s", err, want, wantFiles, out)
	}

	dir, work, cfg, e = resumeSetup(t, writeScript)
	trace := filepath.Join(dir, "run.trace.jsonl")
	wrote := []byte(`"name":"tool:write_file"`)
	_, err, out = runUntil(t, bin, []string{"run", "--json", "--config", cfg, "--workdir", work, "--trace", trace, fmTask}, resumeEnv(dir), e,
		func() syscall.Signal {
			if b, _ := os.ReadFile(trace); bytes.Contains(b, wrote) {
				return syscall.SIGKILL
			}
			return 0
		})
	if err == nil {
		t.Fatalf("the run ended before it was killed\n%s", out)
	}
	recorded, _ := os.ReadFile(trace)
	if bytes.Contains(recorded, []byte(`"kind":"halt"`)) || !bytes.Contains(recorded, []byte(`"at":"tool"`)) {
		t.Fatalf("killed at the wrong moment: the trace has a halt, or no snapshot after the write_file call:\n%s", recorded)
	}
	answered, before := e.heldBy(recorded)

	// The work dir rolled back to before the call, and edited.
	if err := os.RemoveAll(filepath.Join(work, "out")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(work, "config", "app.yaml"), "port: 9090\n")

	resumed := filepath.Join(dir, "resumed.trace.jsonl")
	_, err, rout := runUntil(t, bin, []string{"resume", "--json", "--config", cfg, "--trace", resumed, trace}, resumeEnv(dir), e, nil)
	if got := finalOf(rout); err != nil || got != want {
		t.Fatalf("resume: %v, final %s, want %s\n%s", err, got, want, rout)
	}
	if !bytes.Contains(rout, []byte("restored it")) {
		t.Errorf("the resume does not say it restored the work dir:\n%s", rout)
	}
	if got := filesIn(t, work); fmt.Sprint(got) != fmt.Sprint(wantFiles) {
		t.Errorf("the resumed run's work dir %v, the uninterrupted run's %v", got, wantFiles)
	}
	after, reasked := e.askedSince(before, answered)
	if reasked != 0 {
		t.Errorf("the resumed run asked the endpoint %d request(s) whose answer the trace holds", reasked)
	}
	rb, _ := os.ReadFile(resumed)
	if n := bytes.Count(rb, wrote); n != 1 {
		t.Errorf("the resumed trace records the write_file call %d times, want once (served, not made again)", n)
	}
	if b, err := exec.Command(bin, "replay", "--check", resumed).CombinedOutput(); err != nil {
		t.Errorf("replay --check of the resumed trace: %v\n%s", err, b)
	}
	t.Logf("killed after %d trace lines (%d model answers held); resumed: %d model requests, none the trace held the answer to; work dir %v",
		lineCount(trace), before, len(after), wantFiles)
}
