package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

// TestPointerPayloadCopiesFields: a payload given by pointer takes the typed copy path;
// it must behave exactly like the reflective one.
func TestPointerPayloadCopiesFields(t *testing.T) {
	rs, err := LoadRules("p.yaml", []byte(`
facts: {s: {fields: {f: float, i: int, b: bool, name: string, tags: strings, conv: float}}}
rules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	type payload struct {
		F    float64  `json:"f"`
		I    int      `json:"i"`
		B    bool     `json:"b"`
		Name string   `json:"name"`
		Tags []string `json:"tags"`
		Conv int      `json:"conv"` // an int into a float field: converted, not copied
	}
	for _, byPointer := range []bool{true, false} {
		wm := NewWorkingMemory(rs, nil)
		p := payload{F: 0.5, I: 7, B: true, Name: "n", Tags: []string{"a", "b"}, Conv: 3}
		var src any = p
		if byPointer {
			src = &p
		}
		f, err := wm.Put("s", "", src)
		if err != nil {
			t.Fatal(err)
		}
		p.Tags[0] = "changed" // the fact keeps its own copy
		got, _ := json.Marshal(f)
		want := `{"kind":"s","id":"s","rev":1,"payload":{"f":0.5,"i":7,"b":true,"name":"n","tags":["a","b"],"conv":3}}`
		if string(got) != want {
			t.Errorf("byPointer=%v: got %s", byPointer, got)
		}
		for _, bad := range []payload{{F: math.NaN()}, {F: math.Inf(1)}, {I: 1 << 60}} {
			b := bad
			var src any = b
			if byPointer {
				src = &b
			}
			if _, err := wm.Put("s", "", src); err == nil || !strings.Contains(err.Error(), "want a") {
				t.Errorf("byPointer=%v: %+v accepted (%v)", byPointer, bad, err)
			}
		}
	}
}

// TestWholePointerPayload: a pointer to a struct that names every declared field with
// its declared Go type replaces the payload without copying the old one first. It must
// give the same facts as the field-by-field path, reject bad values without changing
// the fact, and leave the fact alone when the pointer is nil.
func TestWholePointerPayload(t *testing.T) {
	rs, err := LoadRules("w.yaml", []byte(`
facts: {s: {fields: {i: int, f: float, g: float, b: bool, name: string, n: int, tags: strings}}}
rules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	// Fields in another order than declared, with a bool in the middle.
	type whole struct {
		Name string   `json:"name"`
		I    int      `json:"i"`
		F    float64  `json:"f"`
		B    bool     `json:"b"`
		G    float64  `json:"g"`
		N    int      `json:"n"`
		Tags []string `json:"tags"`
	}
	type part struct {
		F float64 `json:"f"`
	}
	s := NewSession(rs, WithTrace(trace.Discard))
	get := func() string {
		f, _ := s.Get("s", "")
		b, _ := json.Marshal(f.Payload)
		return string(b)
	}
	w := whole{Name: "a", I: 1, F: 0.5, B: true, G: -2, N: 3, Tags: []string{"x"}}
	for round := 0; round < 3; round++ {
		w.I = round
		if err := s.Set("s", "", &w); err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf(`{"i":%d,"f":0.5,"g":-2,"b":true,"name":"a","n":3,"tags":["x"]}`, round)
		if got := get(); got != want {
			t.Fatalf("round %d: got %s, want %s", round, got, want)
		}
	}
	k, _ := rs.Kind("s")
	if c := s.wm.kinds[k.Index()].plan; c == nil || !c.whole {
		t.Fatalf("the payload did not take the whole path: %+v", c)
	}
	w.Tags[0] = "changed" // the fact keeps its own copy of the list
	before := get()
	if strings.Contains(before, "changed") {
		t.Fatalf("the fact shares the caller's list: %s", before)
	}
	for _, bad := range []whole{{F: math.NaN()}, {G: math.Inf(-1)}, {N: 1 << 60}, {I: -(1 << 60)}} {
		b := bad
		if err := s.Set("s", "", &b); err == nil || !strings.Contains(err.Error(), "want a") {
			t.Errorf("%+v accepted (%v)", bad, err)
		}
		if got := get(); got != before {
			t.Errorf("a rejected payload changed the fact: %s, was %s", got, before)
		}
	}
	if err := s.Set("s", "", (*whole)(nil)); err != nil {
		t.Fatal(err)
	}
	if got := get(); got != before {
		t.Errorf("a nil payload changed the fact: %s, was %s", got, before)
	}
	// A payload of some fields keeps the others, also after failed whole writes.
	if err := s.Set("s", "", &part{F: 9}); err != nil {
		t.Fatal(err)
	}
	if got, want := get(), strings.Replace(before, `"f":0.5`, `"f":9`, 1); got != want {
		t.Errorf("partial update: got %s, want %s", got, want)
	}
}

// TestBindingRejectsWhatSetRejects: a bound struct written in place (the moves) takes
// the numbers a general write takes and refuses the others with the same error,
// leaving the fact and the matcher's input as they were.
func TestBindingRejectsWhatSetRejects(t *testing.T) {
	rs, err := LoadRules("b.yaml", []byte(`
facts: {s: {fields: {f: float, i: int, j: int}}}
rules: [{name: r, salience: 1, when: 's != nil && s.i > 0 && s.j > 0 && s.f > 0', then: {transition: observe}}]
`))
	if err != nil {
		t.Fatal(err)
	}
	type payload struct {
		F float64 `json:"f"`
		I int     `json:"i"`
		J int     `json:"j"`
	}
	const max = 1 << 53
	var src payload
	wm := NewWorkingMemory(rs, nil)
	b, err := wm.Bind("s", &src)
	if err != nil {
		t.Fatal(err)
	}
	k, _ := rs.Kind("s")
	kf := &wm.kinds[k.Index()]
	// Read without handing the payload out, which would send the next write the
	// general way.
	stored := func() string {
		if !kf.has {
			return "none"
		}
		j, _ := json.Marshal(kf.single.Payload)
		return string(j)
	}
	moved := 0
	for _, v := range []payload{
		{F: 1, I: 1, J: 1}, {F: 2, I: max, J: -max}, {F: 3, I: max + 1}, {F: 4, J: -max - 1},
		{F: 5, I: math.MaxInt64}, {F: 6, J: math.MinInt64}, {F: math.NaN(), I: 2}, {F: math.Inf(-1)},
		{F: 7, I: 3, J: 4}, {F: -math.MaxFloat64, I: -1, J: max},
	} {
		before, in := stored(), fmt.Sprint(wm.in)
		if kf.live != nil && kf.live.moves.from != nil {
			moved++
		}
		src = v
		werr := b.Write()
		v2 := v
		serr := NewWorkingMemory(rs, nil).Set("s", "", &v2)
		if fmt.Sprint(werr) != fmt.Sprint(serr) {
			t.Errorf("%+v: Write %v, Set %v", v, werr, serr)
		}
		if werr != nil && (stored() != before || fmt.Sprint(wm.in) != in) {
			t.Errorf("%+v: a refused write changed memory: %s → %s, input %s → %v", v, before, stored(), in, wm.in)
		}
		if want, _ := json.Marshal(v); werr == nil && stored() != string(want) {
			t.Errorf("%+v: stored %s", v, stored())
		}
	}
	if moved < 8 { // the first write binds the moves, the second finds them bound
		t.Errorf("%d writes found the moves bound, want 8", moved)
	}
}
