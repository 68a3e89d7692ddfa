package scenario

import (
	"context"
	"io/fs"
	"strings"
	"testing"

	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"no name", "rounds: [{s: {a: 1}}]", "x.yaml: missing name"},
		{"no rounds", "name: n", "x.yaml: no rounds: a scenario needs at least one round of signals"},
		{"unknown key", "name: n\nround: []", `x.yaml: line 2: unknown key "round" (expected name, description, rules, topic, seed or rounds)`},
		{"round not mapping", "name: n\nrounds:\n  - 42", "x.yaml:3:5: round 1: expected a mapping of kind: {field: value}"},
		{"fields not mapping", "name: n\nrounds:\n  - {s: 3}", "x.yaml:3:5: round 1: line 3: expected a mapping of field: value, got 3"},
		{"empty kind", "name: n\nrounds:\n  - {/x: {a: 1}}", `x.yaml:3:5: round 1: "/x": expected kind or kind/id`},
		{"syntax", "name: [", "x.yaml: line 1: did not find expected node content"},
		{"seed not mapping", "name: n\nseed: 3\nrounds:\n  - {s: {a: 1}}", "x.yaml:2:7: seed: expected a mapping of kind: {field: value}"},
		{"seed fields not mapping", "name: n\nseed: {s: 3}\nrounds:\n  - {s: {a: 1}}", "x.yaml:2:7: seed: line 2: expected a mapping of field: value, got 3"},
		{"topic not string", "name: n\ntopic: [a]\nrounds:\n  - {s: {a: 1}}", "x.yaml: line 2: cannot unmarshal !!seq into string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("x.yaml", []byte(tc.src))
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestRoundsAreServedInOrder(t *testing.T) {
	sc, err := Parse("x.yaml", []byte("name: n\nrounds:\n  - {s: {a: 1}, t/7: {b: x}, u: null}\n  - {s: {a: 2}}"))
	if err != nil {
		t.Fatal(err)
	}
	e := NewEffector(sc)
	ctx := context.Background()
	got, err := e.Gate(ctx, engine.GateRequest{Iteration: 1})
	if err != nil {
		t.Fatal(err)
	}
	// Keys are applied in sorted order, whatever order the file lists them in.
	want := []engine.Change{
		{Op: engine.ChangePut, Kind: "s", Fields: ruleset.Fields{"a": 1}},
		{Op: engine.ChangePut, Kind: "t", ID: "7", Fields: ruleset.Fields{"b": "x"}},
		{Op: engine.ChangeRetract, Kind: "u"},
	}
	if len(got.Changes) != len(want) {
		t.Fatalf("got %+v", got.Changes)
	}
	for i := range want {
		g, w := got.Changes[i], want[i]
		if g.Op != w.Op || g.Kind != w.Kind || g.ID != w.ID || len(g.Fields) != len(w.Fields) {
			t.Errorf("change %d: got %+v, want %+v", i, g, w)
		}
	}
	if _, err := e.Gate(ctx, engine.GateRequest{Iteration: 2}); err != nil {
		t.Fatal(err)
	}
	_, err = e.Gate(ctx, engine.GateRequest{Iteration: 3})
	if err == nil || err.Error() != `scenario "n" has 2 rounds and was asked for round 3` {
		t.Errorf("past the last round: %v", err)
	}
	c, err := e.Mint(ctx, engine.MintRequest{Iteration: 4, Objective: "fix"})
	if err != nil || c.ID != "construct-4" || string(c.Body) != `{"scenario":"n","objective":"fix"}` {
		t.Errorf("mint: %+v %v", c, err)
	}
}

func TestShippedScenariosParse(t *testing.T) {
	err := fs.WalkDir(fixtures.FS, ".", func(path string, d fs.DirEntry, err error) error {
		// harness/ holds gate-signal scenarios; ggs/ holds R4b reports (package scripted).
		if err != nil || d.IsDir() || !strings.HasPrefix(path, "harness/") || !strings.HasSuffix(path, ".yaml") {
			return err
		}
		src, err := fs.ReadFile(fixtures.FS, path)
		if err != nil {
			return err
		}
		if _, err := Parse(path, src); err != nil {
			t.Errorf("%v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzParse(f *testing.F) {
	_ = fs.WalkDir(fixtures.FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if src, rerr := fs.ReadFile(fixtures.FS, path); rerr == nil {
				f.Add(src)
			}
		}
		return nil
	})
	f.Add([]byte("name: n\nrounds:\n  - {s: {a: 1}}"))
	f.Fuzz(func(t *testing.T, src []byte) {
		sc, err := Parse("fuzz.yaml", src)
		if err != nil {
			return
		}
		if sc.Name == "" || len(sc.Rounds) == 0 {
			t.Fatalf("accepted a scenario without a name or rounds: %+v", sc)
		}
	})
}
