package analysis

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
)

// TestCheckFile: a rule file that loads is summed up with its findings; host params are
// not unused; a domains sidecar beside the file is read; every error names its file.
func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const rules = `name: lint
params: {low: 0.2, unused: 3}
facts:
  s:
    fields: {x: float}
objectives: [{name: a}, {name: b, terminal: success}]
rules:
  - {name: low, salience: 10, when: 's != nil && s.x > params.low', then: {objective: b}}
  - {name: other, salience: 5, when: 's == nil', then: {objective: a}}
`
	lint := write("lint.yaml", rules)
	write("sided.yaml", rules)
	write("sided.domains.yaml", "s: optional\ns.x: [0, 1]\n")
	for _, tc := range []struct {
		name, path string
		c          FileCheck
		summary    string // or the error's start
		findings   int
		err        bool
	}{
		{name: "lint", path: lint, summary: "2 rules, 2 params, 1 warning", findings: 1},
		{name: "host params", path: lint, c: FileCheck{HostParamsOf: func(string) []string { return []string{"unused"} }}, summary: "2 rules, 2 params, 0 warnings"},
		{name: "sidecar", path: filepath.Join(dir, "sided.yaml"), c: FileCheck{Analyze: true}, summary: "2 rules, 2 params, 1 warning, 1 gap, 0 overlaps", findings: 2},
		{name: "missing", path: filepath.Join(dir, "none.yaml"), summary: filepath.Join(dir, "none.yaml") + ": ", err: true},
		{name: "bad domains", path: lint, c: FileCheck{Domains: filepath.Join(dir, "nodomains.yaml")}, summary: filepath.Join(dir, "nodomains.yaml"), err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CheckFile(tc.path, tc.c)
			if tc.err {
				if err == nil || !strings.Contains(err.Error(), tc.summary) {
					t.Fatalf("error %v, want one naming %q", err, tc.summary)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s := got.Summary(tc.c.Analyze); s != tc.summary || got.Findings(tc.c.Analyze) != tc.findings || !got.CellsHold() {
				t.Errorf("summary %q, %d findings; want %q, %d", s, got.Findings(tc.c.Analyze), tc.summary, tc.findings)
			}
		})
	}
	bad := write("bad.yaml", "name: bad\nrules: []\n")
	var les ruleset.LoadErrors
	if _, err := CheckFile(bad, FileCheck{}); !errors.As(err, &les) {
		t.Errorf("load errors: %v", err)
	}
}

// TestAddHostParams: a command line's list, spaces and empty items dropped, adds to what
// is there.
func TestAddHostParams(t *testing.T) {
	c := FileCheck{HostParams: []string{"eps"}}
	c.AddHostParams(" w1, ,w2,")
	c.AddHostParams("")
	if want := []string{"eps", "w1", "w2"}; !slices.Equal(c.HostParams, want) {
		t.Errorf("HostParams %q, want %q", c.HostParams, want)
	}
}
