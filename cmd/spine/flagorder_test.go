package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFlagsAfterTheTask runs `spine run "task" --flags...`, the order the help shows:
// the flags must reach the run (the tools work in --workdir, the trace is at --trace) and
// the task text R1 reads must be the task alone. With "--", a task may start with dashes.
func TestRunFlagsAfterTheTask(t *testing.T) {
	for _, tc := range []struct {
		name, task string
		args       func(ar *acceptRun, task string) []string
	}{
		{"flags after the task", "What port does the app use?", func(ar *acceptRun, task string) []string {
			return []string{"run", task, "--config", ar.cfg, "--workdir", filepath.Join(ar.dir, "work"), "--trace", ar.trace}
		}},
		{"flags around the task", "What port does the app use?", func(ar *acceptRun, task string) []string {
			return []string{"run", "--config=" + ar.cfg, task, "--workdir=" + filepath.Join(ar.dir, "work"), "--trace", ar.trace}
		}},
		{"a task after --", "--port? What port does the app use?", func(ar *acceptRun, task string) []string {
			return []string{"run", "--config", ar.cfg, "--workdir", filepath.Join(ar.dir, "work"), "--trace", ar.trace, "--", task}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ar := newAcceptRun(t, nil)
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tc.args(ar, tc.task), strings.NewReader(""), &out, &errOut)
			if code != exitOK {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
			}
			if !strings.Contains(out.String(), "trace written to "+ar.trace) {
				t.Errorf("stdout does not name the trace %s:\n%s", ar.trace, out.String())
			}
			if _, err := os.Stat(ar.trace); err != nil {
				t.Errorf("no trace at --trace: %v", err)
			}
			reqs := ar.servers["m-r1"].Requests()
			if len(reqs) == 0 {
				t.Fatal("R1 was not called")
			}
			var user string
			for _, m := range reqs[0].Chat.Messages {
				if m.Role == "user" {
					user += m.Content
				}
			}
			if !strings.Contains(user, tc.task) || strings.Contains(user, "--workdir") || strings.Contains(user, "--trace") {
				t.Errorf("R1 read %q; want the task %q and no flags", user, tc.task)
			}
			// R3 read config/app.yaml, which exists only in --workdir.
			r3 := ar.servers["m-r3"].Requests()
			if len(r3) < 2 || !strings.Contains(string(r3[1].Body), "port: 8080") {
				t.Errorf("R3's tool did not read config/app.yaml in --workdir")
			}
		})
	}
}
