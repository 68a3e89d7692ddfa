package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"path"
	"strings"
	"testing"

	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/internal/golden"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the sidecar goldens")

// Every shipped harness scenario gives the same scorecard and candidates on every play,
// equal to its golden in testdata.
func TestSidecarGoldens(t *testing.T) {
	paths, err := fs.Glob(fixtures.FS, "harness/*.yaml")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no harness scenarios: %v", err)
	}
	for _, p := range paths {
		src, err := fs.ReadFile(fixtures.FS, p)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := Parse(p, src)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := engine.LoadRulesFS(rules.FS, sc.Rules)
		if err != nil {
			t.Fatal(err)
		}
		var card, cands []byte
		for i := 0; i < 2; i++ {
			rep, err := Run(context.Background(), sc, rs, &trace.MemorySink{})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			c1, c2, err := rep.Sidecars()
			if err != nil {
				t.Fatal(err)
			}
			if i > 0 && (!bytes.Equal(c1, card) || !bytes.Equal(c2, cands)) {
				t.Fatalf("%s: two plays gave different sidecars", p)
			}
			card, cands = c1, c2
		}
		name := strings.TrimSuffix(path.Base(p), ".yaml")
		golden.Check(t, "testdata/"+name+".scorecard.json", card, *rewrite)
		golden.Check(t, "testdata/"+name+".candidates.json", cands, *rewrite)
		for _, b := range [][]byte{card, cands} {
			checkSortedKeys(t, b)
		}
	}
}

// checkSortedKeys requires every object's keys in sorted order, as indented JSON with
// a final newline: encoding/json writes a decoded document's maps with sorted keys, so
// a sorted file is the same bytes once decoded and encoded again.
func checkSortedKeys(t *testing.T, b []byte) {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var tree any
	if err := d.Decode(&tree); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var again bytes.Buffer
	enc := json.NewEncoder(&again)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(tree); err != nil {
		t.Fatal(err)
	}
	if again.String() != string(b) {
		t.Errorf("keys are not sorted, or the layout is not indented JSON:\n%s", b)
	}
}

// A play that ends without admitting anything has no candidates and a verdict that says
// so; a run that errs still reports where it stopped.
func TestSidecarVerdicts(t *testing.T) {
	rs, err := engine.LoadRulesFS(rules.FS, rules.Harness)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, src, verdict, outcome string
		candidates                  int
	}{
		{"admitted", "name: a\ntopic: gap_7\nrounds:\n  - signals: {has_construct: true, deeponto_ok: true, deeponto_complex: true, polyglot_ok: true, r1_on: 0.03, r1_on_prev: 0.01, r1_ci_low: 0.01, novelty: 0.5, schema_entropy: 2.0}\n",
			VerdictAdmitted, engine.OutcomeSuccess, 1},
		{"rounds run out", "name: b\nrounds:\n  - signals: {has_construct: true}\n", VerdictUndecided, engine.OutcomeError, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc, err := Parse("x.yaml", []byte(tc.src))
			if err != nil {
				t.Fatal(err)
			}
			rep, _ := Run(context.Background(), sc, rs, &trace.MemorySink{})
			if rep.Entry.Verdict != tc.verdict || rep.Result.Outcome != tc.outcome {
				t.Errorf("verdict %q outcome %q, want %q %q", rep.Entry.Verdict, rep.Result.Outcome, tc.verdict, tc.outcome)
			}
			card, cands, err := rep.Sidecars()
			if err != nil {
				t.Fatal(err)
			}
			var c struct {
				Candidates []Candidate `json:"candidates"`
			}
			if err := json.Unmarshal(cands, &c); err != nil || len(c.Candidates) != tc.candidates {
				t.Errorf("candidates %s (%v)", cands, err)
			}
			if !strings.Contains(string(card), `"`+sc.Topic+`": {`) {
				t.Errorf("the scorecard has no topic %q:\n%s", sc.Topic, card)
			}
		})
	}
}

func TestSidecarPaths(t *testing.T) {
	for _, tc := range []struct{ trace, card, cands string }{
		{"trace.jsonl", "scorecard.json", "candidates.json"},
		{"evidence/run7/trace.jsonl", "evidence/run7/scorecard.json", "evidence/run7/candidates.json"},
		{"promote.trace.jsonl", "promote.scorecard.json", "promote.candidates.json"},
		{"out/a.jsonl", "out/a.scorecard.json", "out/a.candidates.json"},
		{"mytrace.jsonl", "mytrace.scorecard.json", "mytrace.candidates.json"},
		{"run.log", "run.log.scorecard.json", "run.log.candidates.json"},
	} {
		card, cands := SidecarPaths(tc.trace)
		if card != tc.card || cands != tc.cands {
			t.Errorf("%s: got %s %s, want %s %s", tc.trace, card, cands, tc.card, tc.cands)
		}
	}
}
