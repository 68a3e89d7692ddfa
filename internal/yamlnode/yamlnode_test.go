package yamlnode

import (
	"testing"

	"gopkg.in/yaml.v3"
)

func TestDescribeAndResolve(t *testing.T) {
	var doc yaml.Node
	src := "a: &x {k: v}\nb: *x\nc: [1]\nd: 2.5\ne: true\nf: null\ng: text\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	m := doc.Content[0]
	want := map[string]string{"a": "a mapping", "b": "a mapping", "c": "a list", "d": "the number 2.5",
		"e": "the bool true", "f": "nothing", "g": `"text"`}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k := m.Content[i].Value
		if got := Describe(Resolve(m.Content[i+1])); got != want[k] {
			t.Errorf("%s: got %s, want %s", k, got, want[k])
		}
	}
	if Resolve(nil) != nil {
		t.Error("Resolve(nil) should be nil")
	}
}
