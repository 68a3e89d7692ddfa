package engine

import (
	"context"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
)

const fastpathRules = `
name: shapes
params: {lo: 0.25, hi: 0.75, n: 3, on: true, tag: x}
facts:
  s: {fields: {a: float, b: float, i: int, j: int, ok: bool, name: string}}
  t: {fields: {a: float, ok: bool}}
  items: {many: true, fields: {v: float}}
objectives: [{name: go}]
rules:
  - {name: cmp, salience: 1, when: 's.a > params.lo && s.b <= params.hi', then: {objective: go}}
  - {name: arith, salience: 1, when: 's.a - s.b * 2 / (s.a + 1) >= -0.5', then: {objective: go}}
  - {name: absval, salience: 1, when: 'abs(s.a - s.b) < params.lo', then: {objective: go}}
  - {name: ints, salience: 1, when: 's.i >= params.n || s.j == 2', then: {objective: go}}
  - {name: intdiv, salience: 1, when: 's.i / 2 > 1', then: {objective: go}}
  - {name: bools, salience: 1, when: '!s.ok == params.on or not t.ok', then: {objective: go}}
  - {name: strs, salience: 1, when: 's.name == params.tag && s.name != "y"', then: {objective: go}}
  - {name: nils, salience: 1, when: 't == nil || t.a > 0.5', then: {objective: go}}
  - {name: nilerr, salience: 1, when: 't.a > 0.5', then: {objective: go}}
  - {name: neg, salience: 1, when: '-s.a < -params.lo', then: {objective: go}}
  - {name: mirrored, salience: 1, when: 'params.lo < s.a && 2 >= s.i && abs(s.b) != 0.5 && -1 < abs(s.i)', then: {objective: go}}
  - {name: folded, salience: 1, when: '(params.lo < 1 && s.ok) || false || (s.a > 0 && 1 > 2)', then: {objective: go}}
  - {name: decided_or, salience: 1, when: 't == nil || true || t.a > 0', then: {objective: go}}
  - {name: decided_and, salience: 1, when: 't != nil && t.ok && false && s.ok', then: {objective: go}}
  - {name: literal_or, salience: 1, when: 't.a > 0 || true', then: {objective: go}}
  - {name: literal_and, salience: 1, when: 't.ok && s.ok && false', then: {objective: go}}
  - {name: param_or, salience: 1, when: 't.a > 0 || params.lo < 1', then: {objective: go}}
  - {name: or_chain, salience: 1, when: 't.a > 0.5 or s.i == 1 or s.ok || t.ok', then: {objective: go}}
  - {name: and_chain, salience: 1, when: 's.i >= 0 and (t.a < 0.5 && s.b > -1) && !(s.a > params.hi && t.ok)', then: {objective: go}}
  - {name: bool_tests, salience: 1, when: '!s.ok && t.ok || not t.ok && s.ok', then: {objective: go}}
  - {name: int_ops, salience: 1, when: 's.i != 0 && s.i < 3 && s.i <= 2 && s.i > -2 && s.j == 1 || s.j >= 3', then: {objective: go}}
  - {name: abs_ops, salience: 1, when: 'abs(s.i) == 2 || abs(s.i) != 1 && abs(s.i) <= 1 || abs(s.i) > 2 || abs(s.a) == 0.5 || abs(s.a) <= 0.25', then: {objective: go}}
  - {name: abs_more, salience: 1, when: 'abs(s.i) >= 1 && abs(s.i) < 3 && abs(s.b) > 0.25 && abs(s.b) >= 0.5 && abs(s.b) < 1', then: {objective: go}}
  - {name: lone_bool, salience: 1, when: 't.ok', then: {objective: go}}
  - {name: lone_test, salience: 1, when: 's.b >= 0.5', then: {objective: go}}
  - {name: pfx_a, salience: 1, when: 't != nil && t.a > 0.25 && s.i >= 0 && s.ok', then: {objective: go}}
  - {name: pfx_b, salience: 1, when: 't != nil && t.a > 0.25 && s.i >= 0 && s.b < 0.5', then: {objective: go}}
  - {name: pfx_c, salience: 1, when: 't != nil && t.a > 0.25 && s.j == 1 && s.ok', then: {objective: go}}
  - {name: pfx_d, salience: 1, when: 't != nil && t.a > 0.25 && s.j == 1 && s.ok', then: {objective: go}}
  - {name: pfx_e, salience: 1, when: 't.a > 0.1 && s.a > 0 && s.b > 0 && s.ok', then: {objective: go}}
  - {name: pfx_f, salience: 1, when: 't.a > 0.1 && s.a > 0 && s.b > 0 && !s.ok', then: {objective: go}}
  - {name: vmonly_int_arith, salience: 1, when: 's.i + s.j > 3', then: {objective: go}}
  - {name: vmonly_list, salience: 1, when: 'len(items) > 1', then: {objective: go}}
  - {name: vmonly_abs_int, salience: 1, when: 'abs(s.i) * s.j > 0', then: {objective: go}}
  - {name: vmonly_big_literal, salience: 1, when: 's.i == 9007199254740993', then: {objective: go}}
`

// matcherSeeds are the pinned seeds of the random facts the matcher is checked on.
var matcherSeeds = []uint64{1, 2, 3, 0x5eed, 0xdecade}

// TestMatcherMatchesVM checks that every rule the matcher decides agrees with the expr
// VM on random facts, and that it leaves exactly the opaque rules (and those reading an
// absent fact) to the VM.
func TestMatcherMatchesVM(t *testing.T) {
	sets := map[string][]byte{"shapes.yaml": []byte(fastpathRules)}
	if files, _ := filepath.Glob("../../rules/*.yaml"); len(files) > 0 {
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			sets[f] = src
		}
	}
	for _, seed := range matcherSeeds {
		rng := rand.New(rand.NewPCG(seed, 1))
		for _, name := range slices.Sorted(maps.Keys(sets)) {
			rs, err := LoadRules(name, sets[name])
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var opaque []string
			for _, r := range rs.Rules() {
				if !rs.Matcher().Analysable(r.Index()) {
					opaque = append(opaque, r.Name)
				}
			}
			if want := "arith absval intdiv vmonly_int_arith vmonly_list vmonly_abs_int"; name == "shapes.yaml" && strings.Join(opaque, " ") != want {
				t.Errorf("shapes.yaml: the VM evaluates %v, want %s", opaque, want)
			}
			out := make([]uint8, len(rs.Rules()))
			for trial := 0; trial < 300; trial++ {
				wm := NewWorkingMemory(rs, nil)
				for _, k := range rs.Kinds()[2:] {
					if k.Many || rng.IntN(4) == 0 {
						continue // sometimes absent, to exercise nil checks and errors
					}
					f := ruleset.Fields{}
					for _, fld := range k.Fields {
						f[fld.Name] = randomValue(rng, fld.Type)
					}
					if _, err := wm.Put(k.Name, "", f); err != nil {
						t.Fatal(err)
					}
				}
				var m vm.VM
				decided, _ := rs.Matcher().Decide(&wm.in, out)
				for _, r := range rs.Rules() {
					if decided[r.Index()] == cond.VM {
						continue
					}
					got := decided[r.Index()] == cond.True
					want, werr := m.Run(r.Program(), wm.envValue())
					if werr != nil || want != got {
						t.Fatalf("seed %d: %s rule %s (%s): vm %v (error %v), matcher %v; facts %v", seed, name, r.Name, r.When, want, werr, got, wm.All())
					}
				}
			}
		}
	}
}

// TestCycleMatchesVM checks the outcome a cycle records for every rule, whichever way
// the rule was evaluated (by the matcher or the VM), against the expr VM on random facts.
func TestCycleMatchesVM(t *testing.T) {
	rs, err := LoadRules("shapes.yaml", []byte(fastpathRules))
	if err != nil {
		t.Fatal(err)
	}
	var m vm.VM
	for _, seed := range matcherSeeds {
		rng := rand.New(rand.NewPCG(seed, 2))
		for trial := 0; trial < 300; trial++ {
			s := NewSession(rs, WithMaxFirings(1<<30))
			for _, k := range rs.Kinds()[2:] {
				if k.Many || rng.IntN(4) == 0 {
					continue
				}
				f := ruleset.Fields{}
				for _, fld := range k.Fields {
					f[fld.Name] = randomValue(rng, fld.Type)
				}
				if err := s.Set(k.Name, "", f); err != nil {
					t.Fatal(err)
				}
			}
			cyc, err := s.Cycle(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			for i, ev := range cyc.Evaluated {
				r := rs.Order()[i]
				want, werr := m.Run(r.Program(), s.wm.envValue())
				switch {
				case werr != nil && (ev.Result != ResultError || ev.Error != werr.Error()),
					werr == nil && ev.Result != map[bool]string{true: ResultTrue, false: ResultFalse}[want.(bool)]:
					t.Fatalf("seed %d: rule %s (%s): cycle says %+v, the VM %v (error %v); facts %v",
						seed, r.Name, r.When, ev, want, werr, s.wm.All())
				}
			}
		}
	}
}

func randomValue(rng *rand.Rand, t ruleset.FieldType) any {
	switch t {
	case ruleset.TypeFloat:
		return []float64{0, 0.25, 0.5, 0.75, 1, -1, rng.Float64(), rng.NormFloat64()}[rng.IntN(8)]
	case ruleset.TypeInt:
		return rng.IntN(7) - 2
	case ruleset.TypeBool:
		return rng.IntN(2) == 0
	case ruleset.TypeString:
		return []string{"x", "y", ""}[rng.IntN(3)]
	}
	return []string{"a", "b"}
}

// TestGGSRulesOneTable: the shipped GGS rules are decided by one lookup in one table,
// whose leaves the engine keeps (Leaves is 0 for a matcher that numbers none), and the
// matcher decides every one of them. OBSERVE's memory_* rules open with memory_pair,
// the macro-state rules with signals: each gate is one table, and a cycle with no
// memory pair looks up the macro-states' table only.
func TestGGSRulesOneTable(t *testing.T) {
	rs, err := LoadRulesFile("../../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	m := rs.Matcher()
	if m.Leaves() == 0 {
		t.Fatal("ggs.yaml is decided by several tables whose leaves are not numbered")
	}
	if m.Parts() != 2 {
		t.Errorf("ggs.yaml is decided by %d tables, want 2: the macro-states and the memory rulings", m.Parts())
	}
	parts := map[bool]map[int]bool{false: {}, true: {}} // by memory rule: the parts
	for _, r := range rs.Rules() {
		if !m.Analysable(r.Index()) {
			t.Errorf("rule %s is left to the VM", r.Name)
		}
		memory := strings.HasPrefix(r.Name, "memory_")
		parts[memory][m.PartOf(r.Index())] = true
	}
	if len(parts[false]) != 1 || len(parts[true]) != 1 {
		t.Errorf("parts of the macro-state rules %v, of the memory rules %v: want one each", parts[false], parts[true])
	}
}
