package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

const movesRules = `
facts: {s: {fields: {x: float, n: int, on: bool, tag: string, note: string, tags: strings}}}
objectives: [{name: o}]
rules:
  - {name: x_big, salience: 4, when: 's.x > 5', then: {objective: o}}
  - {name: n_big, salience: 3, when: 's.n > 2', then: {objective: o}}
  - {name: on, salience: 2, when: 's.on', then: {objective: o}}
  - {name: tag_a, salience: 1, when: 's.tag == "a"', then: {objective: o}}
`

// movesHost is a host's struct that writes every field of kind s, in another order.
type movesHost struct {
	Tags []string `json:"tags"`
	Tag  string   `json:"tag"`
	N    int      `json:"n"`
	On   bool     `json:"on"`
	Note string   `json:"note"`
	X    float64  `json:"x"`
}

// TestWholeWriteFeedsMatcher: a whole write from a host's struct fills the payload and
// the matcher's input in one pass. Whatever the path (in place, into a new payload
// after one was handed out, from another struct, after a reload, after a rejected
// write, after a partial write), the rules see the values the fact holds. So they do
// when the matcher reads a field twice, and the input is refreshed from the payload.
func TestWholeWriteFeedsMatcher(t *testing.T) {
	for _, unfused := range []bool{false, true} {
		t.Run(fmt.Sprint("unfused=", unfused), func(t *testing.T) { testWholeWrite(t, unfused) })
	}
}

func testWholeWrite(t *testing.T, unfused bool) {
	s := NewSession(mustLoad(t, movesRules), WithTrace(trace.Discard), WithMaxFirings(1<<30))
	ctx := context.Background()
	var want movesHost // what the fact must hold
	kind, _ := s.RuleSet().Kind("s")
	if unfused { // until the reload below binds the input again
		slots := &s.wm.slotsOf[kind.Index()]
		*slots = append(*slots, (*slots)[0])
	}
	check := func(step string) {
		t.Helper()
		// Read without handing the payload out, so that the next write may go in place.
		got, _ := json.Marshal(s.wm.kinds[kind.Index()].single.Payload)
		w, _ := json.Marshal(want)
		var a, b map[string]any
		_ = json.Unmarshal(got, &a)
		_ = json.Unmarshal(w, &b)
		if fmt.Sprint(a) != fmt.Sprint(b) {
			t.Fatalf("%s: fact %s, want %s", step, got, w)
		}
		cyc, err := s.Cycle(ctx)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		holds := map[string]bool{"x_big": want.X > 5, "n_big": want.N > 2, "on": want.On, "tag_a": want.Tag == "a"}
		for _, ev := range cyc.Evaluated {
			if r := fmt.Sprint(holds[ev.Rule]); ev.Result != r {
				t.Fatalf("%s: rule %s gives %s, want %s (fact %s)", step, ev.Rule, ev.Result, r, got)
			}
		}
	}
	a := movesHost{Tags: []string{"t"}, Tag: "a", N: 3, On: true, X: 6}
	b := movesHost{Tag: "b", N: 1, X: 1}
	set := func(step string, src *movesHost) {
		t.Helper()
		if err := s.Set("s", "", src); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		want = *src
		check(step)
	}
	set("assert", &a)
	a.X, a.N, a.On, a.Tag = 1, 0, false, "z"
	set("in place", &a)
	if fused := s.wm.kinds[kind.Index()].live.moves.fused; fused == unfused {
		t.Fatalf("the moves are fused: %v", fused)
	}
	a.X = 9
	set("in place again", &a)
	// A payload handed out is never written again: the next write goes into another.
	var held []Fact
	var heldJSON []string
	for i := range 3 {
		f, _ := s.Get("s", "")
		j, _ := json.Marshal(f)
		held, heldJSON = append(held, f), append(heldJSON, string(j))
		a.N = 7 + i
		set(fmt.Sprintf("after hand-out %d", i), &a)
	}
	set("another struct", &b)
	set("the first again", &a)
	if err := s.reload("moved.yaml", []byte(strings.Replace(movesRules, "salience: 4", "salience: 0", 1))); err != nil {
		t.Fatal(err)
	}
	a.Tag, a.X = "a", 2
	set("after a reload", &a)
	bad := a
	bad.X, bad.Tag, bad.N = math.NaN(), "b", 0
	if err := s.Set("s", "", &bad); err == nil {
		t.Fatal("NaN accepted")
	}
	check("after a rejected write") // the matcher still sees a
	if err := s.Set("s", "", &struct {
		N int `json:"n"`
	}{N: 5}); err != nil {
		t.Fatal(err)
	}
	want.N = 5
	check("after a partial write")
	a.N, a.On = -1, true
	set("whole after partial", &a)
	for i, f := range held {
		if j, _ := json.Marshal(f); string(j) != heldJSON[i] {
			t.Errorf("fact %d handed out changed: %s, was %s", i, j, heldJSON[i])
		}
	}
}

// TestWholeWriteLists: a whole write copies a list, keeping nil and empty apart as the
// JSON of the fact shows them.
func TestWholeWriteLists(t *testing.T) {
	s := NewSession(mustLoad(t, movesRules), WithTrace(trace.Discard))
	h := movesHost{}
	for _, c := range []struct {
		tags []string
		want string
	}{{nil, `null`}, {[]string{}, `[]`}, {[]string{"a", "b"}, `["a","b"]`}, {nil, `null`}} {
		h.Tags = c.tags
		if err := s.Set("s", "", &h); err != nil {
			t.Fatal(err)
		}
		f, _ := s.Get("s", "")
		got, _ := json.Marshal(f.Payload)
		if !strings.Contains(string(got), `"tags":`+c.want) {
			t.Errorf("tags %#v: fact %s", c.tags, got)
		}
	}
}

// TestWholeWriteFirstError: of several bad numbers, the error names the first in the
// host struct's field order, whatever the types, as the field-by-field path does.
func TestWholeWriteFirstError(t *testing.T) {
	rs := mustLoad(t, `
facts: {s: {fields: {x: float, n: int}}}
rules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]
`)
	type intFirst struct {
		N int     `json:"n"`
		X float64 `json:"x"`
	}
	type floatFirst struct {
		X float64 `json:"x"`
		N int     `json:"n"`
	}
	for _, c := range []struct {
		good, bad any
		want      string
	}{
		{&intFirst{}, &intFirst{N: 1 << 60, X: math.Inf(1)}, `field "n" of kind "s": want an integer, got 1152921504606846976 (int)`},
		{&floatFirst{}, &floatFirst{N: 1 << 60, X: math.Inf(1)}, `field "x" of kind "s": want a finite number, got +Inf`},
	} {
		s := NewSession(rs, WithTrace(trace.Discard))
		if err := s.Set("s", "", c.good); err != nil {
			t.Fatal(err)
		}
		err := s.Set("s", "", c.bad)
		if err == nil || err.Error() != c.want {
			t.Errorf("%T: error %v, want %s", c.bad, err, c.want)
		}
	}
}

// TestBindingWritesAsSet: a Binding's writes give, byte for byte, the trace and the
// errors that Set gives for the same struct: in place, after a hand-out, after writes
// from another struct and by fields, rejected writes, a retraction and a reload, with
// the matcher's input fused or not.
func TestBindingWritesAsSet(t *testing.T) {
	for _, unfused := range []bool{false, true} {
		set, bound := bindingScript(t, false, unfused), bindingScript(t, true, unfused)
		if set != bound {
			t.Errorf("unfused=%v: a Binding gives\n%s\nSet gives\n%s", unfused, bound, set)
		}
	}
}

// bindingScript runs the script of TestBindingWritesAsSet, writing its host's struct
// with a Binding or with Set, and returns the trace and the errors.
func bindingScript(t *testing.T, bound, unfused bool) string {
	sink := &trace.MemorySink{}
	s := NewSession(mustLoad(t, movesRules), WithTrace(sink), WithRunID("bind"), WithMaxFirings(1<<30))
	kind, _ := s.RuleSet().Kind("s")
	kf := &s.wm.kinds[kind.Index()]
	if unfused { // until the reload below binds the input again
		slots := &s.wm.slotsOf[kind.Index()]
		*slots = append(*slots, (*slots)[0])
	}
	a := movesHost{Tags: []string{"t"}, Tag: "a", N: 3, On: true, X: 6}
	b, err := s.Bind("s", &a)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	write := func(fast bool) {
		t.Helper()
		if bound && fast && (b.stamp == 0 || kf.live.moves.stamp != b.stamp) {
			t.Fatal("the write would not go in place")
		}
		var err error
		if bound {
			err = b.Write()
		} else {
			err = s.Set("s", "", &a)
		}
		fmt.Fprintf(&out, "%v\n", err)
	}
	do := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	cycle := func() { _, err := s.Cycle(context.Background()); do(err) }
	write(false)
	write(false) // the first write found the struct's plan, the second binds its moves
	a.X, a.N, a.Tag, a.Tags = 1, 0, "z", nil
	write(true)
	cycle()
	s.Get("s", "")
	a.X = 9
	write(false) // into a new payload
	write(false) // in place, binding the moves
	write(true)
	do(s.Set("s", "", &movesHost{Tag: "b", N: 1}))
	write(false)
	do(s.Set("s", "", ruleset.Fields{"x": 3.5}))
	write(false)
	a.X = math.Inf(-1)
	write(true)
	a.X, a.N = 2, 1<<60
	write(true)
	a.N = 2
	write(true)
	cycle()
	do(s.Retract("s", ""))
	write(false)
	do(s.reload("moved.yaml", []byte(strings.Replace(movesRules, "salience: 4", "salience: 0", 1))))
	a.Tag = "a"
	write(false)
	write(true)
	cycle()
	return out.String() + string(sink.Bytes())
}

// TestBindErrors: only a declared singleton kind binds.
func TestBindErrors(t *testing.T) {
	s := NewSession(mustLoad(t, memoryRules), WithTrace(trace.Discard))
	for kind, want := range map[string]string{
		"nope":    `unknown fact kind "nope"`,
		"subtask": `kind "subtask" holds many facts: an id is required`,
	} {
		if _, err := s.Bind(kind, &struct{}{}); err == nil || err.Error() != want {
			t.Errorf("Bind(%q): error %v, want %s", kind, err, want)
		}
	}
}
