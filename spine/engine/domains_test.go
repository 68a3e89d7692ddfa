package engine

import (
	"strings"
	"testing"
)

func TestDomainsSourceKeepsFilePositions(t *testing.T) {
	src := "name: d\nfacts: {s: {fields: {x: float}}}\ndomains:\n  s.x: [0, 1]   # comment\n  s: present\nrules:\n  - {name: r, salience: 1, when: 's != nil', then: {}}\n"
	// An empty then is an error; use a valid one.
	src = strings.Replace(src, "then: {}", "then: {transition: observe}", 1)
	rs, err := LoadRules("d.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	got, ok := rs.DomainsSource()
	if !ok {
		t.Fatal("no domains")
	}
	want := "\n\n\n  s.x: [0, 1]   # comment\n  s: present\n"
	if string(got) != want {
		t.Errorf("got %q, want %q", got, want)
	}
	flow, err := LoadRules("f.yaml", []byte("domains: {s.x: [0, 1]}\nfacts: {s: {fields: {x: float}}}\nrules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := flow.DomainsSource(); string(got) != "         {s.x: [0, 1]}\n" {
		t.Errorf("flow mapping: got %q", got)
	}
	none, err := LoadRules("n.yaml", []byte("rules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := none.DomainsSource(); ok {
		t.Error("domains reported for a file without them")
	}
	_, err = LoadRules("b.yaml", []byte("domains: [1, 2]\nrules: [{name: r, salience: 1, when: 'true', then: {transition: observe}}]\n"))
	if err == nil || !strings.Contains(err.Error(), "b.yaml:1:10: domains: expected a mapping of signal: domain, got a list") {
		t.Errorf("a list of domains: %v", err)
	}
}
