package engine

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

const factRules = `version: 1
facts:
  all:
    fields: {f: float, i: int, b: bool, s: string, l: strings}
rules:
  - {name: r, salience: 1, when: all != nil, then: {transition: observe}}
`

// TestAssignConversions is the table of what a declared field type accepts.
func TestAssignConversions(t *testing.T) {
	cases := []struct {
		typ  FieldType
		in   any
		want any    // stored value when err is ""
		err  string // error text
	}{
		{TypeFloat, 1.5, 1.5, ""},
		{TypeFloat, float32(0.5), 0.5, ""},
		{TypeFloat, 3, 3.0, ""},
		{TypeFloat, int8(-3), -3.0, ""},
		{TypeFloat, int16(7), 7.0, ""},
		{TypeFloat, int32(7), 7.0, ""},
		{TypeFloat, int64(7), 7.0, ""},
		{TypeFloat, uint(7), 7.0, ""},
		{TypeFloat, uint8(7), 7.0, ""},
		{TypeFloat, uint16(7), 7.0, ""},
		{TypeFloat, uint32(7), 7.0, ""},
		{TypeFloat, uint64(7), 7.0, ""},
		{TypeFloat, json.Number("2.25"), 2.25, ""},
		{TypeFloat, json.Number("two"), nil, "want a number, got json.Number"},
		{TypeFloat, "1", nil, "want a number, got string"},
		{TypeFloat, nil, nil, "want a number, got <nil>"},
		{TypeFloat, math.NaN(), nil, "want a finite number, got NaN"},
		{TypeFloat, math.Inf(-1), nil, "want a finite number, got -Inf"},
		{TypeInt, 42, 42, ""},
		{TypeInt, 2.0, 2, ""},
		{TypeInt, json.Number("12"), 12, ""},
		{TypeInt, -(1 << 53), -(1 << 53), ""},
		{TypeInt, 1<<53 + 2, nil, "want an integer, got 9007199254740994 (int)"},
		{TypeInt, 2.5, nil, "want an integer, got 2.5 (float64)"},
		{TypeInt, math.NaN(), nil, "want an integer, got NaN (float64)"},
		{TypeInt, true, nil, "want an integer, got true (bool)"},
		{TypeBool, true, true, ""},
		{TypeBool, 1, nil, "want a bool, got int"},
		{TypeString, "x", "x", ""},
		{TypeString, []byte("x"), nil, "want a string, got []uint8"},
		{TypeStrings, []string{"a", "b"}, []string{"a", "b"}, ""},
		{TypeStrings, []any{"a"}, []string{"a"}, ""},
		{TypeStrings, []any{}, []string{}, ""},
		{TypeStrings, nil, []string(nil), ""},
		{TypeStrings, []any{"a", nil}, nil, "want a list of strings, element 1 is <nil>"},
		{TypeStrings, "a", nil, "want a list of strings, got string"},
		{TypeStrings, []int{1}, nil, "want a list of strings, got []int"},
	}
	for _, c := range cases {
		dst := newFieldProbe(Field{Name: "x", Type: c.typ})
		err := assign(dst, Field{Name: "x", Type: c.typ}, c.in)
		switch {
		case c.err != "":
			if err == nil || err.Error() != c.err {
				t.Errorf("%s ← %#v: error %v, want %q", c.typ, c.in, err, c.err)
			}
		case err != nil:
			t.Errorf("%s ← %#v: %v", c.typ, c.in, err)
		case !reflect.DeepEqual(dst.Interface(), c.want):
			t.Errorf("%s ← %#v: stored %#v, want %#v", c.typ, c.in, dst.Interface(), c.want)
		}
	}
	if err := assign(newFieldProbe(Field{Type: TypeInt}), Field{Type: "date"}, 1); err == nil || err.Error() != `unknown field type "date"` {
		t.Errorf("unknown field type: %v", err)
	}
}

func TestFactGetAndJSON(t *testing.T) {
	s := NewSession(mustLoad(t, factRules))
	f, err := s.Assert("all", "", Fields{"f": 0.5, "i": 2, "b": true, "s": "x", "l": []string{"p"}})
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
	if f, ok := k.Field("i"); !ok || f.Type != TypeInt {
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
