package analysis

import (
	"bytes"
	"flag"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/agentspine/spine/internal/golden"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata/")

// golden compares got with testdata/name, or rewrites the file with -rewrite.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	golden.Check(t, path, got, *rewrite)
}

func shipped(t testing.TB, name string) *ruleset.RuleSet {
	t.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func loadRules(t testing.TB, name, src string) *ruleset.RuleSet {
	t.Helper()
	rs, err := engine.LoadRules(name, []byte(src))
	if err != nil {
		t.Fatalf("loading %s: %v", name, err)
	}
	return rs
}

func ggsOptions(t testing.TB) Options {
	t.Helper()
	d, err := LoadDomainsFile("testdata/ggs.domains.yaml")
	if err != nil {
		t.Fatal(err)
	}
	x, err := LoadExpectationsFile("../rules/expect/ggs.cells.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return Options{Domains: d, Expect: x, HostParams: []string{"alpha", "beta", "lambda", "w1", "w2", "time_budget_ms", "max_replans", "replan_cap", "max_fault_retries", "caution"}}
}

func analyze(t testing.TB, rs *ruleset.RuleSet, opt Options) *Report {
	t.Helper()
	rep, err := Analyze(rs, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func reportText(t testing.TB, rep *Report) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, w := range rep.Warnings {
		b.WriteString(w.String() + "\n")
	}
	return b.Bytes()
}

func shippedSource(t testing.TB, name string) string {
	t.Helper()
	b, err := fs.ReadFile(rules.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
