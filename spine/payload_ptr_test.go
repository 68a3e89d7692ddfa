package spine

import (
	"math"
	"strings"
	"testing"
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
		got, _ := f.MarshalJSON()
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
