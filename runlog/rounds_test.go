package runlog

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

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

func readFixture(t testing.TB, path string) *trace.File {
	t.Helper()
	tf, err := trace.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return tf
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
	th := ThresholdsOf(trace.Header{Rules: trace.RulesRef{Path: "ggs.yaml", Source: string(src)}})
	if th.Delta == nil || th.Rho == nil || th.Theta == nil || th.Epsilon == nil || th.Source != "the header's rule file" {
		t.Fatalf("thresholds from rules/ggs.yaml: %+v", th)
	}
	if *th.Delta != 0.3 || *th.Rho != 0.5 || *th.Theta != 0.8 || *th.Epsilon != 0.1 {
		t.Errorf("δ %v ρ %v θ %v ε %v, want 0.3 0.5 0.8 0.1", *th.Delta, *th.Rho, *th.Theta, *th.Epsilon)
	}
	// The header's params win: they are what the run used, overrides included.
	th = ThresholdsOf(trace.Header{Params: []byte(`{"delta":0.25,"rho":0.4,"theta":0.9}`), Rules: trace.RulesRef{Path: "ggs.yaml", Source: string(src)}})
	if *th.Delta != 0.25 || *th.Rho != 0.4 || *th.Theta != 0.9 || th.Source != "header params" {
		t.Errorf("with header params: %+v", th)
	}
	// Neither: no lines, and the page says nothing about where they came from.
	if th := ThresholdsOf(trace.Header{}); th.Delta != nil || th.Source != "" {
		t.Errorf("without params or rules: %+v", th)
	}
}
