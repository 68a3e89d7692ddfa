package taskrun_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentspine/spine/internal/tracetest"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// TestForkOwnRules runs the demo task, then forks its trace at every cycle boundary with
// its own rules: each fork ends with the original's FinalResult, begins with the
// original's lines before the boundary byte for byte, records the rules it was given
// as a reload, and replays.
func TestForkOwnRules(t *testing.T) {
	ctx := context.Background()
	full := demoConfig(t, t.TempDir())
	want, err := taskrun.RunTask(ctx, full)
	if err != nil || want.Final == nil {
		t.Fatalf("the original run: %v, final %v", err, want.Final)
	}
	data, err := os.ReadFile(want.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	o, err := taskrun.OpenResume(want.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	src := []byte(o.Recording.Header.Rules.Source)
	bs := replay.Boundaries(o.Recording)
	if len(bs) == 0 {
		t.Fatalf("the demo run has %d cycle boundaries", len(bs))
	}
	for _, b := range bs {
		o, err := taskrun.OpenResume(want.TracePath) // a fork consumes its recording
		if err != nil {
			t.Fatal(err)
		}
		cfg := demoConfig(t, t.TempDir())
		cfg.Workdir = full.Workdir
		got, sw, err := taskrun.Fork(ctx, o, cfg, taskrun.ForkOptions{At: b.Seq, RulesPath: "own.yaml", Rules: src, Host: "h"})
		if err != nil {
			t.Fatalf("fork at %+v: %v", b, err)
		}
		if sw.Seq != b.Seq || sw.Line != b.Line-1 {
			t.Errorf("fork at %+v: switched at %+v", b, sw)
		}
		if g, w := sameFinal(got), sameFinal(want); g != w {
			t.Errorf("fork at %+v: final %s, want %s", b, g, w)
		}
		out, err := os.ReadFile(got.TracePath)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(out, bytes.Join(lines[:b.Line-1], nil)) {
			t.Errorf("fork at %+v: does not begin with the original's first %d lines", b, b.Line-1)
		}
		f, err := trace.Read("fork", bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		if e := f.Events[b.Line-1]; e.Kind != trace.KindResumed || f.Events[b.Line].Kind != trace.KindRulesReloaded {
			t.Errorf("fork at %+v: line %d is %s then %s, want resumed then rules_reloaded", b, b.Line, e.Kind, f.Events[b.Line].Kind)
		}
		tracetest.AssertReplays(t, out, full.Rules)
	}
}

// TestForkOutOfRange: a seq before the first boundary or past the last line is refused
// with the range that can be forked.
func TestForkOutOfRange(t *testing.T) {
	full := demoConfig(t, t.TempDir())
	want, err := taskrun.RunTask(context.Background(), full)
	if err != nil {
		t.Fatal(err)
	}
	for _, at := range []int64{1, 1 << 40} {
		o, err := taskrun.OpenResume(want.TracePath)
		if err != nil {
			t.Fatal(err)
		}
		cfg := demoConfig(t, t.TempDir())
		cfg.TracePath = filepath.Join(t.TempDir(), "fork.jsonl")
		_, _, err = taskrun.Fork(context.Background(), o, cfg, taskrun.ForkOptions{At: at})
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte("fork at a seq from ")) {
			t.Errorf("--at %d: %v, want the valid range", at, err)
		}
		if _, err := os.Stat(cfg.TracePath); err == nil {
			t.Errorf("--at %d: a trace was written", at)
		}
	}
}
