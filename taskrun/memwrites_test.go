package taskrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/tracetest"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// TestLostMegramsAreAFaultOfTheRun runs one task twice on one store with the same
// Megram IDs: the second run's writes are all refused (the store never overwrites), and
// the run says so in its Result and in a memory_lost event of its trace, which replays.
func TestLostMegramsAreAFaultOfTheRun(t *testing.T) {
	mem := filepath.Join(t.TempDir(), "mem")
	var sent int
	for run := 1; run <= 2; run++ {
		r := newRig(t)
		r.scriptAccept()
		r.cfg.MemoryDir = mem
		r.cfg.SkipDream = true
		res, err := RunTask(context.Background(), r.cfg)
		if err != nil {
			t.Fatal(err)
		}
		w := res.MemoryWrites
		if w == nil || w.Sent == 0 {
			t.Fatalf("run %d: memory writes %+v, want some sent", run, w)
		}
		trace, err := os.ReadFile(res.TracePath)
		if err != nil {
			t.Fatal(err)
		}
		lostLine := bytes.Contains(trace, []byte(`"kind":"`+spinetrace.KindMemoryLost+`"`))
		switch run {
		case 1:
			if w.Lost() != 0 || w.Durable != w.Sent || lostLine {
				t.Fatalf("run 1: %+v (memory_lost in the trace: %v), want every write stored", w, lostLine)
			}
			sent = w.Sent
		case 2:
			if w.Sent != sent || w.Lost() != sent || !lostLine || !strings.Contains(w.Failed[0].Error, "already stored") {
				t.Fatalf("run 2: %+v (memory_lost in the trace: %v), want all %d writes lost and recorded", w, lostLine, sent)
			}
			rs, err := LoadRules("")
			if err != nil {
				t.Fatal(err)
			}
			tracetest.AssertReplays(t, trace, rs)
		}
	}
}

func TestCorruptMemoryRefusesTheRunUnlessSkipped(t *testing.T) {
	mem := filepath.Join(t.TempDir(), "mem")
	if err := os.MkdirAll(mem, 0o755); err != nil {
		t.Fatal(err)
	}
	// A store whose CURRENT names no MANIFEST.
	for name, body := range map[string]string{"CURRENT": "garbage\n", "MANIFEST-000001": ""} {
		if err := os.WriteFile(filepath.Join(mem, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := newRig(t)
	r.cfg.MemoryDir = mem
	_, err := RunTask(context.Background(), r.cfg)
	if err == nil || !strings.Contains(err.Error(), "is corrupt") || !strings.Contains(err.Error(), "spine memory repair --db "+mem) {
		t.Fatalf("run on a corrupt store: %v, want a refusal naming repair", err)
	}
	r = newRig(t)
	r.scriptAccept()
	r.cfg.MemoryDir, r.cfg.MemoryCorrupt = mem, MemoryCorruptSkip
	var warned string
	r.cfg.Warn = func(s string) { warned += s }
	res, err := RunTask(context.Background(), r.cfg)
	if err != nil || res.MemoryWrites != nil || !strings.Contains(warned, "WITHOUT memory") {
		t.Fatalf("skip: %v, writes %+v, warning %q", err, res.MemoryWrites, warned)
	}
}
