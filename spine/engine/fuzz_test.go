package engine

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"

	"github.com/expr-lang/expr/vm"
)

// FuzzLoadRules feeds arbitrary bytes to the loader. A bad file must come back as a
// LoadErrors with positions, never as a panic (the loader turns one into an "internal
// error", which this test counts as a failure), and a file that loads must give a rule
// set whose every rule can be evaluated, and whose then-actions can be carried out,
// in a fresh session.
func FuzzLoadRules(f *testing.F) {
	for _, src := range fuzzSeeds(f) {
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		rs, err := LoadRules("fuzz.yaml", src)
		if err != nil {
			checkLoadErrors(t, err)
			_, again := LoadRules("fuzz.yaml", src)
			if again == nil || again.Error() != err.Error() {
				t.Fatalf("loading the same bytes twice gave different errors:\n%v\n---\n%v", err, again)
			}
			return
		}
		if rs == nil {
			t.Fatal("nil error and nil rule set")
		}
		for _, v := range factValueSets {
			exerciseRuleSet(t, rs, v)
		}
	})
}

func fuzzSeeds(tb testing.TB) [][]byte {
	var seeds [][]byte
	add := func(path string) {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	// This package's rule files, and package ruleset's, broken ones included.
	for _, dir := range []string{"testdata", "../ruleset/testdata"} {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, ".yaml") {
				add(path)
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	shipped, _ := filepath.Glob("../../rules/*.yaml")
	for _, p := range shipped {
		add(p)
	}
	return seeds
}

func checkLoadErrors(t *testing.T, err error) {
	t.Helper()
	var les ruleset.LoadErrors
	if !errors.As(err, &les) || len(les) == 0 {
		t.Fatalf("error is %T, want a non-empty LoadErrors: %v", err, err)
	}
	for i, e := range les {
		if strings.Contains(e.Msg, "internal error") {
			t.Fatalf("loader panicked: %v", e)
		}
		if e.Line < 1 || e.Col < 1 || e.Msg == "" {
			t.Fatalf("error %d has no position or message: %+v", i, e)
		}
		if i > 0 && (les[i-1].Line > e.Line || les[i-1].Line == e.Line && les[i-1].Col > e.Col) {
			t.Fatalf("errors out of file order: %v then %v", les[i-1], e)
		}
	}
	_ = err.Error()
}

// factValueSets are the field values a fuzzed rule set's facts get: none (every kind
// absent), zero values, ordinary values, and extremes that stress number handling.
var factValueSets = []map[ruleset.FieldType]any{
	nil,
	{},
	{ruleset.TypeFloat: 0.5, ruleset.TypeInt: 3, ruleset.TypeBool: true, ruleset.TypeString: "x", ruleset.TypeStrings: []string{"x", "y"}},
	{ruleset.TypeFloat: -1e300, ruleset.TypeInt: 1 << 53, ruleset.TypeBool: false, ruleset.TypeString: "", ruleset.TypeStrings: []string{}},
}

// exerciseRuleSet runs cycles in a fresh session until no rule fires, so that every rule
// is evaluated and every rule that can fire carries out its then. Unless values is nil,
// every declared kind first gets facts with those field values. Before each cycle every
// rule the matcher decides must agree with the expr VM.
func exerciseRuleSet(t *testing.T, rs *ruleset.RuleSet, values map[ruleset.FieldType]any) {
	t.Helper()
	sink := &trace.MemorySink{}
	s := NewSession(rs, WithTrace(sink), WithMaxFirings(len(rs.Rules())+2))
	if values != nil {
		for _, k := range rs.Kinds() {
			if k.Name == ruleset.KindState || k.Name == ruleset.KindObjective {
				continue
			}
			ids := []string{""}
			if k.Many {
				ids = []string{"b", "a"}
			}
			fields := ruleset.Fields{}
			for _, f := range k.Fields {
				if v, ok := values[f.Type]; ok {
					fields[f.Name] = v
				}
			}
			for _, id := range ids {
				if _, err := s.Assert(k.Name, id, fields); err != nil {
					t.Fatalf("asserting a %s fact: %v", k.Name, err)
				}
			}
		}
	}
	for i := 0; i <= len(rs.Rules()); i++ {
		checkMatcherMatchesVM(t, s)
		cyc, err := s.Cycle(context.Background())
		if err != nil {
			var re *RunawayError
			if errors.As(err, &re) {
				return
			}
			t.Fatalf("cycle %d: %v", i+1, err)
		}
		if len(cyc.Evaluated) != len(rs.Rules()) {
			t.Fatalf("cycle %d evaluated %d of %d rules", i+1, len(cyc.Evaluated), len(rs.Rules()))
		}
		for _, ev := range cyc.Evaluated {
			if strings.HasPrefix(ev.Error, "panic") {
				t.Fatalf("rule %s panicked: %s", ev.Rule, ev.Error)
			}
		}
		if cyc.Fired == "" {
			break
		}
	}
	if err := s.Err(); err != nil {
		t.Fatalf("trace: %v", err)
	}
}

// checkMatcherMatchesVM evaluates every rule the matcher decides both ways on the
// session's working memory: same truth value, and no error from the VM.
func checkMatcherMatchesVM(t *testing.T, s *Session) {
	t.Helper()
	var m vm.VM
	decided, _ := s.rs.Matcher().Decide(&s.wm.in, make([]uint8, len(s.rs.Rules())))
	for _, r := range s.rs.Rules() {
		if decided[r.Index()] == cond.VM {
			continue
		}
		got := decided[r.Index()] == cond.True
		want, werr := m.Run(r.Program(), s.wm.envValue())
		if werr != nil || want != got {
			t.Fatalf("rule %s (%s): the expr VM gives %v (error %v), the matcher %v; facts %v",
				r.Name, r.When, want, werr, got, s.wm.All())
		}
	}
}

// TestLoadValidRuleFiles loads every rule file the project ships and the valid rule
// files of this package's tests.
func TestLoadValidRuleFiles(t *testing.T) {
	shipped, _ := filepath.Glob("../../rules/*.yaml")
	tests, _ := filepath.Glob("testdata/[ef]*/*.yaml") // engine/ and fuzz/; load/ holds broken files
	if len(tests) < 2 {
		t.Fatalf("test rule files missing: %v", tests)
	}
	for _, p := range append(shipped, tests...) {
		if _, err := LoadRulesFile(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// TestLoadErrorSnippet pins the snippet layout: the line with a gutter, then a caret
// under the column, tabs shown as spaces.

func TestLoadRulesFSAndFile(t *testing.T) {
	src, err := os.ReadFile("../../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"r/ggs.yaml": {Data: src}}
	rs, err := LoadRulesFS(fsys, "r/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if rs.Path() != "r/ggs.yaml" {
		t.Errorf("path = %q", rs.Path())
	}
	if _, err := LoadRulesFS(fsys, "r/missing.yaml"); err == nil {
		t.Errorf("LoadRulesFS of a missing file: no error")
	}
	if rs, err := LoadRulesFile("../../rules/ggs.yaml"); err != nil || rs.Path() != "../../rules/ggs.yaml" {
		t.Errorf("LoadRulesFile: %v", err)
	}
	if _, err := LoadRulesFile(filepath.Join(t.TempDir(), "missing.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadRulesFile of a missing file: %v, want ErrNotExist", err)
	}
}
