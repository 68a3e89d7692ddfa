package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/golden"
	"github.com/agentspine/spine/spine/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden HTML pages in testdata")

// fixtures are the recorded runs every trace reader is checked on.
func fixtures(t testing.TB) []string {
	t.Helper()
	var all []string
	for _, pattern := range []string{"../fixtures/ggs/*.trace.jsonl", "../fixtures/pipeline/*.trace.jsonl", "../fixtures/harness/*.trace.jsonl"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, m...)
	}
	if len(all) < 10 {
		t.Fatalf("found %d trace fixtures, want at least 10", len(all))
	}
	return all
}

// fixtureName names a fixture's golden after its directory and file: ggs_accept.
func fixtureName(path string) string {
	return filepath.Base(filepath.Dir(path)) + "_" + strings.TrimSuffix(filepath.Base(path), ".trace.jsonl")
}

func readFixture(t testing.TB, path string) *trace.File {
	t.Helper()
	tf, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

func render(t testing.TB, name string, tf *trace.File) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, name, tf); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return b.Bytes()
}

func TestRenderGolden(t *testing.T) {
	for _, f := range fixtures(t) {
		tf := readFixture(t, f)
		name := "fixtures/" + filepath.Base(filepath.Dir(f)) + "/" + filepath.Base(f)
		got := render(t, name, tf)
		// The same trace renders to the same bytes.
		if again := render(t, name, tf); !bytes.Equal(got, again) {
			t.Errorf("%s: two renderings differ", f)
		}
		golden.Check(t, filepath.Join("testdata", "golden", fixtureName(f)+".html"), got, *rewrite)
	}
}

// hostile is a trace whose every string a model, a tool or a rule file could have
// written tries to become markup: a closing script tag, a new script, an image whose
// error handler runs code.
const hostile = "testdata/hostile.trace.jsonl"

// payload is the string hostile.trace.jsonl plants everywhere.
const payload = `</script><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`

func TestRenderEscapesHostileTrace(t *testing.T) {
	got := string(render(t, hostile, readFixture(t, hostile)))
	if n := strings.Count(strings.ToLower(got), "<script"); n != 1 {
		t.Errorf("the page has %d script elements, want only its own", n)
	}
	for _, bad := range []string{"<img", "window.__pwned=1</script>", "onerror=\"window", "<svg onload"} {
		if strings.Contains(got, bad) {
			t.Errorf("the page contains %q unescaped", bad)
		}
	}
	// The payload is on the page as text, escaped, in every place it was planted.
	escaped := "&lt;/script&gt;&lt;script&gt;window.__pwned=1&lt;/script&gt;&lt;img src=x onerror=&#34;window.__pwned=2&#34;&gt;"
	if n := strings.Count(got, escaped); n < 20 {
		t.Errorf("the payload appears escaped %d times, want it everywhere it was planted (20 or more)", n)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "hostile.html"), []byte(got), *rewrite)
}

func TestRoundsOfFixtures(t *testing.T) {
	for _, f := range fixtures(t) {
		if strings.Contains(f, "/harness/") {
			continue // the harness rule set is not GGS: no signals, no rounds
		}
		loss, err := Rounds(f, readFixture(t, f))
		if err != nil {
			t.Fatal(err)
		}
		if len(loss.Rounds) == 0 {
			t.Errorf("%s: no rounds", f)
		}
		for i, r := range loss.Rounds {
			if r.Round != i+1 || r.Directive == "" || r.Rule == "" || r.BlockedTools == nil || r.BlockedTargets == nil {
				t.Errorf("%s: round %d is %+v", f, i+1, r)
			}
		}
		if loss.Epsilon != 0.1 {
			t.Errorf("%s: ε %v, want the header's 0.1", f, loss.Epsilon)
		}
	}
}

func TestThresholdsFromEmbeddedRules(t *testing.T) {
	// A header without params takes δ, ρ and θ from the rule file it embeds.
	src, err := os.ReadFile("../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	th := thresholds(nil, trace.RulesRef{Path: "ggs.yaml", Source: string(src)})
	if th.Delta == nil || th.Rho == nil || th.Theta == nil || th.Epsilon == nil || th.Source != "the header's rule file" {
		t.Fatalf("thresholds from rules/ggs.yaml: %+v", th)
	}
	if *th.Delta != 0.3 || *th.Rho != 0.5 || *th.Theta != 0.8 || *th.Epsilon != 0.1 {
		t.Errorf("δ %v ρ %v θ %v ε %v, want 0.3 0.5 0.8 0.1", *th.Delta, *th.Rho, *th.Theta, *th.Epsilon)
	}
	// The header's params win: they are what the run used, overrides included.
	th = thresholds([]KV{{"delta", "0.25"}, {"rho", "0.4"}, {"theta", "0.9"}}, trace.RulesRef{Path: "ggs.yaml", Source: string(src)})
	if *th.Delta != 0.25 || *th.Rho != 0.4 || *th.Theta != 0.9 || th.Source != "header params" {
		t.Errorf("with header params: %+v", th)
	}
	// Neither: no lines, and the page says nothing about where they came from.
	if th := thresholds(nil, trace.RulesRef{}); th.Delta != nil || th.Source != "" {
		t.Errorf("without params or rules: %+v", th)
	}
}

// FuzzRender builds and renders the page of whatever trace.Read accepts: an error or a
// page, never a panic, and a page renders to the same bytes twice.
func FuzzRender(f *testing.F) {
	for _, path := range []string{"../fixtures/ggs/refine_then_accept.trace.jsonl", hostile} {
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"fact_updated","fact":{"kind":"signals","payload":{"round":1,"D":2e308}}}` + "\n" +
		`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","type":"PlanDirective","payload":{"blocked_tools":null}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := trace.Read("f.jsonl", bytes.NewReader(data))
		if err != nil {
			return
		}
		r, err := Build("f.jsonl", tf)
		if err != nil {
			return
		}
		var a, b bytes.Buffer
		if err := Render(&a, r); err != nil {
			t.Fatal(err)
		}
		if err := Render(&b, r); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("two renderings differ (err %v)", err)
		}
	})
}

// TestFindings renders traces the Auditor finds fault with: every finding is on the
// page, its evidence linked to the events it cites.
func TestFindings(t *testing.T) {
	for _, c := range []struct {
		trace string
		kinds []string
	}{
		{"../audit/testdata/designed/ggs_thrashing.jsonl", []string{"ggs_thrashing"}},
		{"../audit/testdata/designed/verdict_without_evidence.jsonl", []string{"verdict_without_evidence", "verdict_without_evidence"}},
	} {
		r, err := Build(c.trace, readFixture(t, c.trace))
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		for _, f := range r.Findings {
			kinds = append(kinds, f.Kind)
			if len(f.Links) != len(f.Evidence) || len(f.Links) == 0 {
				t.Errorf("%s: %s has links %v for evidence %v", c.trace, f.Kind, f.Links, f.Evidence)
			}
			for _, l := range f.Links {
				if l.Anchor == "" {
					t.Errorf("%s: %s cites seq %d, which the page does not show", c.trace, f.Kind, l.Seq)
				}
			}
		}
		if strings.Join(kinds, " ") != strings.Join(c.kinds, " ") {
			t.Errorf("%s: findings %v, want %v", c.trace, kinds, c.kinds)
		}
		var b bytes.Buffer
		if err := Render(&b, r); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(b.String(), `<tr class="finding">`); n != len(c.kinds) {
			t.Errorf("%s: %d finding rows on the page, want %d", c.trace, n, len(c.kinds))
		}
		golden.Check(t, filepath.Join("testdata", "golden", "audit_"+strings.TrimSuffix(filepath.Base(c.trace), ".jsonl")+".html"), b.Bytes(), *rewrite)
	}
}
