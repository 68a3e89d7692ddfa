package analysis

import (
	"bytes"
	"context"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"

	tr "github.com/agentspine/spine/spine/trace"
)

func recording(t *testing.T, name string, trace []byte) *replay.Recording {
	t.Helper()
	return recordingTB(t, name, trace)
}

func recordingTB(t testing.TB, name string, trace []byte) *replay.Recording {
	t.Helper()
	tf, err := tr.Read(name, bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.NewRecording(name, tf)
	if err != nil {
		t.Fatal(err)
	}
	return rec
}

func fixtureTraces(t *testing.T) []string {
	t.Helper()
	var out []string
	err := fs.WalkDir(fixtures.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".trace.jsonl") && (strings.HasPrefix(p, "ggs/") || strings.HasPrefix(p, "harness/")) {
			out = append(out, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func rulesFor(trace string) string {
	if strings.HasPrefix(trace, "ggs/") {
		return "ggs.yaml"
	}
	return "harness.yaml"
}

// With the rules a trace was recorded with, every decision comes out as recorded: the
// rebuilt working memory, the terminal scope and the refraction all match the engine's.
func TestWhatIfRecordedRulesChangeNothing(t *testing.T) {
	for _, p := range fixtureTraces(t) {
		trace, err := fs.ReadFile(fixtures.FS, p)
		if err != nil {
			t.Fatal(err)
		}
		res, err := WhatIf(recording(t, p, trace), shipped(t, rulesFor(p)))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if n := bytes.Count(trace, []byte(`"kind":"conflict_set"`)); n != len(res.Decisions) || n == 0 {
			t.Errorf("%s: %d decisions for %d conflict sets", p, len(res.Decisions), n)
		}
		for _, d := range res.Changes() {
			t.Errorf("%s: cycle %d changed: %s", p, d.Cycle, d.transition())
		}
		if len(res.Notes) > 0 {
			t.Errorf("%s: notes %v", p, res.Notes)
		}
		if !res.Decisions[len(res.Decisions)-1].Last {
			t.Errorf("%s: the last decision is not marked as the run's end", p)
		}
	}
}

// Edited thresholds, re-deciding the shipped runs: the golden file is the what-if output.
func TestWhatIfEdits(t *testing.T) {
	edits := []struct{ file, from, to string }{
		{"ggs.yaml", "  theta: 0.8 ", "  theta: 0.9 "},
		{"ggs.yaml", "  epsilon: 0.1 ", "  epsilon: 0.3 "},
		{"ggs.yaml", "  rho: 0.5 ", "  rho: 1.0 "},
		{"harness.yaml", "  max_iters: 8 ", "  max_iters: 5 "},
	}
	var out bytes.Buffer
	for _, e := range edits {
		src, err := rules.FS.ReadFile(e.file)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(src, []byte(e.from)) {
			t.Fatalf("%s has no %q", e.file, e.from)
		}
		name := strings.TrimSuffix(e.file, ".yaml") + "-" + strings.TrimSuffix(strings.Fields(e.to)[0], ":") + strings.Fields(e.to)[1] + ".yaml"
		edited := loadRules(t, name, string(bytes.Replace(src, []byte(e.from), []byte(e.to), 1)))
		out.WriteString("## " + e.file + ": " + strings.TrimSpace(e.from) + " → " + strings.TrimSpace(e.to) + "\n")
		for _, p := range fixtureTraces(t) {
			if rulesFor(p) != e.file {
				continue
			}
			trace, _ := fs.ReadFile(fixtures.FS, p)
			res, err := WhatIf(recording(t, path.Base(p), trace), edited)
			if err != nil {
				t.Fatal(err)
			}
			if err := res.WriteText(&out, false); err != nil {
				t.Fatal(err)
			}
		}
	}
	checkGolden(t, "whatif.golden", out.Bytes())
}

const refractionRules = `
facts:
  s:
    fields: {x: float}
objectives: [{name: a}, {name: b}, {name: done, terminal: success}]
rules:
  - {name: first, salience: 10, when: 's != nil && s.x > 0', then: {objective: a}}
  - {name: second, salience: 5, when: 's != nil', then: {objective: b}}
`

// A rule that already fired on the same facts is refracted in the recording; the
// re-decision honours that instead of picking it again.
func TestWhatIfRefraction(t *testing.T) {
	rs := loadRules(t, "r.yaml", refractionRules)
	sink := &tr.MemorySink{}
	s := engine.NewSession(rs, engine.WithTrace(sink))
	if _, err := s.Put("s", "", ruleset.Fields{"x": 1}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"first", "second"} {
		res, err := s.Cycle(context.Background())
		if err != nil || res.Fired != want {
			t.Fatalf("recording: fired %q (%v), want %q", res.Fired, err, want)
		}
	}
	rec := recording(t, "r.jsonl", sink.Bytes())
	res, err := WhatIf(rec, rs)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Decisions) != 2 || len(res.Changes()) != 0 {
		t.Fatalf("decisions %+v", res.Decisions)
	}
	// An edited rule set whose first rule reads x differently fires it where the
	// recording fired second: it never fired in the recording, so it is not refracted.
	edited := loadRules(t, "e.yaml", strings.Replace(strings.Replace(refractionRules, "s.x > 0", "s.x > 5", 1),
		"- {name: second", "- {name: third, salience: 7, when: 's != nil && s.x > 0', then: {objective: done}}\n  - {name: second", 1))
	res, err = WhatIf(rec, edited)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range res.Decisions {
		got = append(got, d.transition())
	}
	want := []string{"first (a) → third (done)", "second (b) → third (done)"}
	if strings.Join(got, "; ") != strings.Join(want, "; ") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// Facts the edited rules do not declare are left out, and the output says so.
func TestWhatIfNotes(t *testing.T) {
	src, _ := rules.FS.ReadFile("ggs.yaml")
	edited := loadRules(t, "no-beta.yaml", strings.Replace(string(src), "      beta_eff: float     # β·(1−Ω)\n", "", 1))
	trace, _ := fs.ReadFile(fixtures.FS, "ggs/accept.trace.jsonl")
	res, err := WhatIf(recording(t, "accept.trace.jsonl", trace), edited)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`the edited rules declare no field "beta_eff" of kind "signals"; its values are left out`}
	if strings.Join(res.Notes, "|") != strings.Join(want, "|") || len(res.Changes()) != 0 {
		t.Errorf("notes %q, changes %d", res.Notes, len(res.Changes()))
	}
}

func TestWhatIfBadFactEvent(t *testing.T) {
	trace, _ := fs.ReadFile(fixtures.FS, "ggs/accept.trace.jsonl")
	bad := bytes.Replace(trace, []byte(`"payload":{"round":0,`), []byte(`"payload":{"round":"zero",`), 1)
	_, err := WhatIf(recording(t, "bad.jsonl", bad), shipped(t, "ggs.yaml"))
	if err == nil || err.Error() != (`bad.jsonl:2: rebuilding working memory: field "round" of kind "signals": want an integer, got zero (string)`) {
		t.Errorf("got %v", err)
	}
}

// TestWhatIfFile: a trace file is re-decided as its recording is; a missing one is the
// reader's error.
func TestWhatIfFile(t *testing.T) {
	const p = "ggs/accept.trace.jsonl"
	trace, err := fs.ReadFile(fixtures.FS, p)
	if err != nil {
		t.Fatal(err)
	}
	rs := shipped(t, rulesFor(p))
	want, err := WhatIf(recording(t, "../fixtures/"+p, trace), rs)
	if err != nil {
		t.Fatal(err)
	}
	got, err := WhatIfFile("../fixtures/"+p, rs)
	if err != nil || got.Trace != want.Trace || len(got.Decisions) != len(want.Decisions) || len(got.Changes()) != 0 {
		t.Errorf("WhatIfFile: %+v, %v; want %d decisions as WhatIf", got, err, len(want.Decisions))
	}
	if _, err := WhatIfFile("../fixtures/ggs/missing.trace.jsonl", rs); err == nil {
		t.Error("a missing trace was re-decided")
	}
}
