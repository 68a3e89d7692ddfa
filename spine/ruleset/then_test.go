package ruleset

import (
	"encoding/json"
	"testing"
)

// thenFile asserts and updates facts with every kind of field value, including text that
// JSON escapes for HTML.
const thenFile = `facts:
  s:
    fields: {x: float, ok: bool, n: int, name: string, tags: strings}
  items:
    many: true
    fields: {v: float}
objectives:
  - name: a
rules:
  - name: r
    salience: 1
    when: "true"
    then:
      objective: a
      assert:
        - {kind: s, fields: {x: 0.1, ok: true, n: 9007199254740993, name: "<a&b>", tags: [p, "q\u2028"]}}
        - {kind: items, id: i1}
      update: {kind: items, id: i2, fields: {v: 1e21}}
      retract: {kind: items, id: i3}
`

// TestThenJSONBytes pins the bytes a rule_fired event records for a rule's then: the
// encoding of the typed field values the load made, exactly as encoding/json writes the
// then with those values in place (the layout rule_fired has always had).
func TestThenJSONBytes(t *testing.T) {
	rs, err := Load("t.yaml", []byte(thenFile))
	if err != nil {
		t.Fatal(err)
	}
	r := rs.Rules()[0]
	got, err := r.ThenJSON()
	if err != nil {
		t.Fatal(err)
	}
	type action struct {
		Kind   string `json:"kind"`
		ID     string `json:"id,omitempty"`
		Fields Fields `json:"fields,omitempty"`
	}
	typed := struct {
		Objective  string   `json:"objective,omitempty"`
		Assert     []action `json:"assert,omitempty"`
		Update     []action `json:"update,omitempty"`
		Retract    []action `json:"retract,omitempty"`
		Transition string   `json:"transition,omitempty"`
	}{Objective: "a",
		Assert:  []action{{Kind: "s", Fields: r.AssertFields(0)}, {Kind: "items", ID: "i1", Fields: r.AssertFields(1)}},
		Update:  []action{{Kind: "items", ID: "i2", Fields: r.UpdateFields(0)}},
		Retract: []action{{Kind: "items", ID: "i3"}}}
	want, err := json.Marshal(typed)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("ThenJSON\n got  %s\n want %s", got, want)
	}
	const literal = `{"objective":"a","assert":[{"kind":"s","fields":{"n":9007199254740993,"name":"\u003ca\u0026b\u003e","ok":true,"tags":["p","q\u2028"],"x":0.1}},{"kind":"items","id":"i1"}],"update":[{"kind":"items","id":"i2","fields":{"v":1e+21}}],"retract":[{"kind":"items","id":"i3"}]}`
	if string(got) != literal {
		t.Errorf("ThenJSON\n got  %s\n want %s", got, literal)
	}
	if f := r.AssertFields(1); f != nil {
		t.Errorf("AssertFields(1) = %v, want nil (no fields given)", f)
	}
}
