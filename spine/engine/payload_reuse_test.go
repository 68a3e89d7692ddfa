package engine

import (
	"context"
	"encoding/json"
	"math"
	"reflect"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// TestHandedOutPayloadsStayFixed: working memory reuses payload memory only when nobody
// outside has seen it. Every fact a caller got, from any method, keeps its values after
// later changes, failed changes and cycles.
func TestHandedOutPayloadsStayFixed(t *testing.T) {
	rs, err := LoadRules("reuse.yaml", []byte(`
facts: {s: {fields: {x: float, n: int, tag: string}}}
objectives: [{name: low}, {name: high}]
rules:
  - {name: low, salience: 1, when: 's.x < 5', then: {objective: low}}
  - {name: high, salience: 1, when: 's.x >= 5', then: {objective: high}}
`))
	if err != nil {
		t.Fatal(err)
	}
	s := NewSession(rs, WithTrace(trace.Discard))
	type sig struct {
		X float64 `json:"x"`
		N int     `json:"n"`
	}
	ctx := context.Background()
	var held []Fact
	var want []string
	hold := func(f Fact) {
		b, _ := json.Marshal(f)
		held, want = append(held, f), append(want, string(b))
	}
	for i := 0; i < 12; i++ {
		x := float64(i)
		switch i % 6 {
		case 0:
			f, err := s.Put("s", "", sig{X: x, N: i})
			if err != nil {
				t.Fatal(err)
			}
			hold(f)
		case 1:
			if err := s.Set("s", "", &sig{X: x, N: i}); err != nil {
				t.Fatal(err)
			}
			f, _ := s.Get("s", "")
			hold(f)
		case 2:
			if err := s.Set("s", "", ruleset.Fields{"x": x, "tag": "t"}); err != nil {
				t.Fatal(err)
			}
			hold(s.Query("s")[0])
		case 3:
			if err := s.Set("s", "", &sig{X: x}); err != nil {
				t.Fatal(err)
			}
			hold(s.Memory().All()[1])
		case 4:
			f, err := s.Update("s", "", ruleset.Fields{"n": i})
			if err != nil {
				t.Fatal(err)
			}
			hold(f)
		case 5:
			if err := s.Set("s", "", &sig{X: x, N: -i}); err != nil {
				t.Fatal(err)
			}
			f, err := s.Memory().Retract("s", "")
			if err != nil {
				t.Fatal(err)
			}
			hold(f)
		}
		if _, err := s.Cycle(ctx); err != nil {
			t.Fatal(err)
		}
		f, _ := s.Get(ruleset.KindObjective, "")
		hold(f)
		// A change that fails half-way leaves the fact as it was.
		if err := s.Set("s", "", ruleset.Fields{"n": 1, "x": math.NaN()}); err == nil {
			t.Fatal("NaN accepted")
		}
		if i%6 != 5 {
			if f, _ := s.Get("s", ""); f.Rev != s.Memory().KindRev("s") {
				t.Fatalf("round %d: a failed change moved the fact to rev %d", i, f.Rev)
			}
		}
		for j, f := range held {
			if b, _ := json.Marshal(f); string(b) != want[j] {
				t.Fatalf("round %d: fact %d changed after it was handed out:\n got %s\nwant %s", i, j, b, want[j])
			}
		}
	}
	// The rules see the latest values, not a stale or reused buffer.
	if err := s.Set("s", "", &sig{X: 7}); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.Cycle(ctx); res.Fired != "high" {
		t.Fatalf("fired %q, want high", res.Fired)
	}
	if err := s.Set("s", "", &sig{X: 1}); err != nil {
		t.Fatal(err)
	}
	if res, _ := s.Cycle(ctx); res.Fired != "low" {
		t.Fatalf("fired %q, want low", res.Fired)
	}
}

// TestBuiltinPayloadLayout: the engine writes and reads the built-in facts through typed
// pointers to their fields (putBuiltin, builtin), which assume these types.
func TestBuiltinPayloadLayout(t *testing.T) {
	rs, err := LoadRules("b.yaml", []byte("rules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		index int
		name  string
		types []reflect.Type
	}{
		{stateIndex, ruleset.KindState, []reflect.Type{stringType, intType}},
		{objectiveIndex, ruleset.KindObjective, []reflect.Type{stringType, stringType}},
	} {
		k := rs.Kinds()[c.index]
		if k.Name != c.name {
			t.Fatalf("kind %d is %q, want %q", c.index, k.Name, c.name)
		}
		if k.Type().NumField() != len(c.types) {
			t.Fatalf("%s: payload %v has %d fields, want %d", c.name, k.Type(), k.Type().NumField(), len(c.types))
		}
		for i, want := range c.types {
			if got := k.Type().Field(i).Type; got != want {
				t.Errorf("%s field %d: %v, the engine assumes %v", c.name, i, got, want)
			}
		}
	}
}
