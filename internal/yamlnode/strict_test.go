package yamlnode

import "testing"

func TestDecodeStrictMessage(t *testing.T) {
	type shape struct {
		Name   string `yaml:"name"`
		Rounds []int  `yaml:"rounds"`
	}
	for _, tc := range []struct{ src, hint, want string }{
		{"name: n\ncolour: red\n", "", `line 2: unknown key "colour"`},
		{"name: n\ncolour: red\n", " (expected name or rounds)", `line 2: unknown key "colour" (expected name or rounds)`},
		{"name: n\ncolour: red\n", " ($1 is not a key)", `line 2: unknown key "colour" ($1 is not a key)`},
		{"name: [a]\nrounds: x\n", "", "line 1: cannot unmarshal !!seq into string; line 2: cannot unmarshal !!str `x` into []int"},
		{"name: n\n  bad: indent\n", "", "line 2: mapping values are not allowed in this context"},
	} {
		var v shape
		err := DecodeStrict([]byte(tc.src), &v)
		if err == nil {
			t.Errorf("%q decoded without error", tc.src)
			continue
		}
		if got := Message(err, tc.hint); got != tc.want {
			t.Errorf("Message(%q)\n got  %s\n want %s", tc.src, got, tc.want)
		}
	}
	var v shape
	if err := DecodeStrict([]byte("name: n\nrounds: [1, 2]\n"), &v); err != nil || v.Name != "n" || len(v.Rounds) != 2 {
		t.Errorf("a good document: %+v, %v", v, err)
	}
}
