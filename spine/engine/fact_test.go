package engine

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
)

const factRules = `version: 1
facts:
  all:
    fields: {f: float, i: int, b: bool, s: string, l: strings}
rules:
  - {name: r, salience: 1, when: all != nil, then: {transition: observe}}
`

func TestFactGetAndJSON(t *testing.T) {
	s := NewSession(mustLoad(t, factRules))
	f, err := s.Assert("all", "", ruleset.Fields{"f": 0.5, "i": 2, "b": true, "s": "x", "l": []string{"p"}})
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]any{"f": 0.5, "i": 2, "b": true, "s": "x", "l": []string{"p"}} {
		if got, ok := f.Get(name); !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("Get(%s) = %#v, %v; want %#v", name, got, ok, want)
		}
	}
	if _, ok := f.Get("nope"); ok {
		t.Errorf("Get of an undeclared field reported ok")
	}
	if _, ok := (Fact{Kind: "all"}).Get("f"); ok {
		t.Errorf("Get on a fact without payload reported ok")
	}
	b, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"kind":"all","id":"all","rev":1,"payload":{"f":0.5,"i":2,"b":true,"s":"x","l":["p"]}}`
	if string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// TestFactKindDeclaration checks the declared fields and their order, which is the order
// of a payload's JSON.
func TestFactKindDeclaration(t *testing.T) {
	rs := mustLoad(t, factRules)
	k, ok := rs.Kind("all")
	if !ok || k.Many {
		t.Fatalf("kind all: %+v %v", k, ok)
	}
	var names []string
	for _, f := range k.Fields {
		names = append(names, f.Name+":"+string(f.Type))
	}
	if strings.Join(names, " ") != "f:float i:int b:bool s:string l:strings" {
		t.Errorf("fields %v", names)
	}
	if f, ok := k.Field("i"); !ok || f.Type != ruleset.TypeInt {
		t.Errorf("Field(i) = %+v, %v", f, ok)
	}
	if _, ok := k.Field("zz"); ok {
		t.Errorf("Field(zz) reported ok")
	}
	var kinds []string
	for _, k := range rs.Kinds() {
		kinds = append(kinds, k.Name)
	}
	if strings.Join(kinds, ",") != "state,objective,all" {
		t.Errorf("kinds %v, want the built-in ones first", kinds)
	}
	if _, ok := rs.Kind("nope"); ok {
		t.Errorf("Kind(nope) reported ok")
	}
}
