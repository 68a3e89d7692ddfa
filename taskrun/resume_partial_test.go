package taskrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

const demoTask = "Count the lines that contain TODO in the files under src/ and write the count to report.txt"

// demoConfig is the demo task (spine worker --demo's) in a fresh work dir under dir, its
// trace beside it.
func demoConfig(t *testing.T, dir string) taskrun.Config {
	t.Helper()
	rs, err := taskrun.LoadRules("")
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, err := scripted.DemoTaskConfig(work, rs, true)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Task, cfg.Workdir, cfg.TracePath = demoTask, work, filepath.Join(dir, "trace.jsonl")
	return cfg
}

// TestResumePartialEveryLine cuts the demo task's trace after each of its lines, as a
// worker killed there leaves it, and resumes each cut with ResumePartial, as the fleet's
// next attempt does: every resumed run ends with the uninterrupted run's FinalResult,
// its trace replays, and a cut of an ended run is its FinalResult without a run.
func TestResumePartialEveryLine(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo task once per line")
	}
	ctx := context.Background()
	full := demoConfig(t, t.TempDir())
	want, err := taskrun.RunTask(ctx, full)
	if err != nil || want.Final == nil {
		t.Fatalf("the uninterrupted run: %v, final %v", err, want.Final)
	}
	data, err := os.ReadFile(want.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for n := 2; n <= len(lines); n++ {
		dir := t.TempDir()
		partial := filepath.Join(dir, "partial.trace.jsonl")
		if err := os.WriteFile(partial, bytes.Join(lines[:n], nil), 0o600); err != nil {
			t.Fatal(err)
		}
		cfg := demoConfig(t, filepath.Join(dir, "again"))
		// The work dir the cut's run left: the recorded tool calls are served, not made
		// again (the fleet carries an earlier attempt's dir likewise).
		cfg.Workdir = full.Workdir
		cfg.Meta = map[string]string{"fleet_worker": "w2"}
		var wrapped int
		cfg.WrapSink = func(next trace.Sink) trace.Sink { wrapped++; return next }
		got, err := taskrun.ResumePartial(ctx, partial, cfg)
		if err != nil {
			t.Fatalf("cut after line %d: %v", n, err)
		}
		if g, w := sameFinal(got), sameFinal(want); g != w {
			t.Errorf("cut after line %d: final %+v, want %+v", n, g, w)
		}
		if got.TracePath != cfg.TracePath || got.TraceHead == "" {
			t.Errorf("cut after line %d: trace %q head %q, want %q and its head", n, got.TracePath, got.TraceHead, cfg.TracePath)
		}
		b, err := os.ReadFile(got.TracePath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, bytes.Join(lines[:n], nil)) {
			t.Errorf("cut after line %d: the resumed trace does not begin with the cut's lines", n)
		}
		if n == len(lines) { // the halt is the last line: the run had ended
			if !bytes.Equal(b, data) {
				t.Errorf("the ended run's lines were not kept as they are")
			}
		} else {
			if wrapped != 1 {
				t.Errorf("cut after line %d: WrapSink put on %d sinks, want 1", n, wrapped)
			}
			if !bytes.Contains(b, []byte(`"host":"w2"`)) {
				t.Errorf("cut after line %d: the resumed line does not name host w2", n)
			}
		}
		tracetest.AssertReplays(t, b, full.Rules)
		if n < len(lines) {
			chained(t, b, full, want)
		}
	}
}

// chained cuts a resumed trace two lines past its resumed line (inside the call that
// went live, or just after it) and resumes that cut: a recording that holds a resumed
// line is continued as well, the line written again where it was.
func chained(t *testing.T, resumed []byte, full taskrun.Config, want taskrun.Result) {
	t.Helper()
	lines := bytes.SplitAfter(bytes.TrimSuffix(resumed, []byte("\n")), []byte("\n"))
	at := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"kind":"resumed"`)) {
			at = i + 3
		}
	}
	if at == 0 || at >= len(lines) {
		return
	}
	dir := t.TempDir()
	partial := filepath.Join(dir, "partial.trace.jsonl")
	if err := os.WriteFile(partial, bytes.Join(lines[:at], nil), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := demoConfig(t, filepath.Join(dir, "again"))
	cfg.Workdir = full.Workdir
	got, err := taskrun.ResumePartial(context.Background(), partial, cfg)
	if err != nil {
		t.Fatalf("a resumed trace cut after line %d: %v", at, err)
	}
	if g, w := sameFinal(got), sameFinal(want); g != w {
		t.Errorf("a resumed trace cut after line %d: final %s, want %s", at, g, w)
	}
	b, err := os.ReadFile(got.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	tracetest.AssertReplays(t, b, full.Rules)
}

// sameFinal is the FinalResult without its loss and gradient: Ω counts the time the run
// took, and a resumed run's includes its interruption.
func sameFinal(r taskrun.Result) string {
	if r.Final == nil {
		return "no FinalResult"
	}
	f := *r.Final
	f.Loss, f.GradL = contract.Loss{}, 0
	b, _ := json.Marshal(f)
	return string(b)
}
