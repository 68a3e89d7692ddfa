package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReplayErrorsOnStderr: a replay that could not run, or ran on a recording it could
// not use, says so on stderr; stdout keeps the verdicts.
func TestReplayErrorsOnStderr(t *testing.T) {
	src, err := os.ReadFile("../../spine/engine/testdata/engine/transition_observe.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// The seeded mode fact with a name of the wrong type: the rules cannot take it back.
	seeded := filepath.Join(dir, "seeded.jsonl")
	bad := strings.Replace(string(src), `"payload":{"name":"reobserve"}},"h"`, `"payload":{"name":5}},"h"`, 1)
	if bad == string(src) {
		t.Fatal("the seeded fact is not where the test expects it")
	}
	writeFile(t, seeded, bad)
	headless := filepath.Join(dir, "headless.jsonl")
	writeFile(t, headless, `{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"transition","from":"observe","to":"select_objective","event":"observed","iteration":1}`+"\n")
	for _, tc := range []struct {
		args           []string
		stdout, stderr string
	}{
		{[]string{"replay", "--rules", "../../spine/engine/testdata/engine/climb.yaml", seeded},
			"hash chain broken at line 2", seeded + ": recording unusable: " + seeded + ":2: re-applying a seeded fact: "},
		// Said once, as every command says a file that is not a trace.
		{[]string{"replay", headless}, "", "spine replay: " + headless + ":1: expected a spine trace: the first line must be a header"},
	} {
		code, out, errs := runSpine(t, tc.args...)
		if code != exitFail || !strings.Contains(errs, tc.stderr) || (tc.stdout != "" && !strings.Contains(out, tc.stdout)) || strings.Contains(out, tc.stderr) {
			t.Errorf("spine %s: exit %d\nstdout %s\nstderr %s\nwant stderr with %q", strings.Join(tc.args, " "), code, out, errs, tc.stderr)
		}
	}
}
