package replay

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	tr "github.com/agentspine/spine/spine/trace"
)

// BenchmarkResumeReplayPhase measures the part of a resume before it goes live:
// opening the cut recording (chain verified), indexing it, and re-running the control
// plane through Continue up to the switch, writing through the continuation's sink. The
// recording is the role-pipeline fixture cut before its last effector call; the figure
// to read is ns/line.
func BenchmarkResumeReplayPhase(b *testing.B) {
	path := "../../fixtures/pipeline/change_path_then_accept.trace.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	cut := 0
	for i, l := range lines {
		if bytes.Contains(l, []byte(`"kind":"effector_call"`)) {
			cut = i
		}
	}
	dir := b.TempDir()
	cutPath := filepath.Join(dir, "cut.jsonl")
	if err := os.WriteFile(cutPath, bytes.Join(lines[:cut], nil), 0o644); err != nil {
		b.Fatal(err)
	}
	f, _ := tr.Read(path, bytes.NewReader(data))
	full, _ := NewRecording(path, f)
	rs, err := full.EmbeddedRules()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		c, err := tr.OpenContinuation(cutPath)
		if err != nil {
			b.Fatal(err)
		}
		rec, _ := NewRecording(cutPath, c.File)
		cont, _ := NewContinue(rec, ContinueOptions{})
		out := filepath.Join(dir, "resumed.jsonl")
		os.Remove(out)
		sink, err := c.Create(out)
		if err != nil {
			b.Fatal(err)
		}
		eff, _ := newWorld(full, 1<<30) // the switch ends the phase: the world refuses at once
		h := rec.Header
		eng := engine.NewEngine(rs, eff, cont.Option(), engine.WithMeta(h.Meta), engine.WithTrace(sink),
			engine.WithMaxIterations(h.Limits.MaxIterations), engine.WithRecordedRules(h.Rules.Path, h.Rules.Source != ""))
		if err := (&Exchanger{rec: full}).seed(eng.Session()); err != nil {
			b.Fatal(err)
		}
		eng.Run(context.Background())
		sink.Close()
		if _, ok := cont.Switched(); !ok {
			b.Fatal("the resume never went live")
		}
		n += cut
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/line")
}
