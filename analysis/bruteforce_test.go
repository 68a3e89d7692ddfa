package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/agentspine/spine/internal/rulegen"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// The partition is checked against the engine on every elementary cell (one value per
// piece of every variable) and on random points, thresholds and points just beside them,
// for the shipped rule sets and for random ones. The analysis checks the witnesses of its
// regions itself; this checks everything else in them.

func TestBruteForceShipped(t *testing.T) {
	bruteForce(t, shipped(t, "ggs.yaml"), ggsOptions(t), rand.New(rand.NewPCG(1, 2)))
	bruteForce(t, shipped(t, "ggs.yaml"), Options{}, rand.New(rand.NewPCG(3, 4)))
	bruteForce(t, shipped(t, "harness.yaml"), Options{}, rand.New(rand.NewPCG(5, 6)))
}

func TestBruteForceRandomRuleSets(t *testing.T) {
	n := 300
	if testing.Short() {
		n = 40
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < n; i++ {
		src, domains := rulegen.RuleSet(rng)
		rs, err := engine.LoadRules(fmt.Sprintf("random%d.yaml", i), []byte(src))
		if err != nil {
			t.Fatalf("generated rule set does not load: %v\n%s", err, src)
		}
		var opt Options
		if domains != "" {
			if opt.Domains, err = ParseDomains("random.domains.yaml", []byte(domains)); err != nil {
				t.Fatalf("generated domains: %v\n%s", err, domains)
			}
		}
		if !bruteForce(t, rs, opt, rng) {
			t.Fatalf("rule set:\n%s\ndomains:\n%s", src, domains)
		}
	}
}

// bruteForce reports false after the first disagreement.
func bruteForce(t *testing.T, rs *ruleset.RuleSet, opt Options, rng *rand.Rand) bool {
	t.Helper()
	a, _, err := analyzeWith(rs, opt)
	if err != nil {
		t.Errorf("%s: %v", rs.Path(), err)
		return false
	}
	sp := a.sp
	total := 1
	for _, v := range sp.vars {
		total *= len(v.pieces)
	}
	if total <= 20000 {
		idx := make([]int, len(sp.vars))
		for n := 0; n < total; n++ {
			rest := n
			for i, v := range sp.vars {
				idx[i] = rest % len(v.pieces)
				rest /= len(v.pieces)
			}
			r := make(region, len(sp.vars))
			for i, v := range sp.vars {
				r[i] = make([]bool, len(v.pieces))
				r[i][idx[i]] = true
			}
			w := sp.witness(r)
			if !a.agrees(t, idx, w) {
				return false
			}
		}
	}
	for n := 0; n < 200; n++ {
		w, ok := randomPoint(rs, sp, rng)
		if !ok {
			continue
		}
		idx, ok := sp.locate(w)
		if !ok {
			continue
		}
		if !a.agrees(t, idx, w) {
			return false
		}
	}
	return true
}

// agrees runs the engine on a point and compares with the region holding its pieces.
func (a *analyzer) agrees(t *testing.T, idx []int, w Witness) bool {
	t.Helper()
	var leaf *Region
	for _, g := range a.leaves {
		in := true
		for i, j := range idx {
			in = in && g.r[i][j]
		}
		if in {
			if leaf != nil {
				t.Errorf("%s: point %s lies in regions #%d and #%d", a.rs.Path(), w, leaf.Index, g.Index)
				return false
			}
			leaf = g
		}
	}
	if leaf == nil {
		t.Errorf("%s: point %s lies in no region", a.rs.Path(), w)
		return false
	}
	res, err := runWitness(a.rs, w)
	if err != nil {
		t.Errorf("%s: %v", a.rs.Path(), err)
		return false
	}
	ok := false
	switch {
	case !leaf.Decided():
		ok = res.Fired == "" && leaf.Kind == RegionGap || slices.Contains(leaf.Rules, res.Fired) || slices.Contains(leaf.MayFire, res.Fired)
	case leaf.Kind == RegionGap:
		ok = res.Fired == ""
	default:
		ok = slices.Contains(leaf.Rules, res.Fired)
	}
	if !ok {
		t.Errorf("%s: at %s the engine fired %q; region #%d %s says %s %v (may fire %v)",
			a.rs.Path(), w, res.Fired, leaf.Index, leaf.Condition(), leaf.Kind, leaf.Rules, leaf.MayFire)
	}
	return ok
}

// locate finds the piece of each variable a point lies in.
func (sp *space) locate(w Witness) ([]int, bool) {
	facts := map[string]map[string]any{}
	for _, f := range w.Facts {
		m := map[string]any{}
		for _, fv := range f.Fields {
			m[fv.Name] = fv.Value
		}
		facts[f.Kind] = m
	}
	num := func(v any) float64 {
		if i, ok := v.(int); ok {
			return float64(i)
		}
		return v.(float64)
	}
	idx := make([]int, len(sp.vars))
	for i, v := range sp.vars {
		idx[i] = -1
		if v.form == varPresence {
			present := facts[v.kind] != nil
			for j, p := range v.pieces {
				if p.rep.(bool) == present {
					idx[i] = j
				}
			}
			if idx[i] < 0 {
				return nil, false
			}
			continue
		}
		absent := false
		for _, f := range v.fields {
			absent = absent || facts[f.kind] == nil
		}
		if absent {
			idx[i] = 0
			continue
		}
		val := facts[v.fields[0].kind][v.fields[0].field]
		for j, p := range v.pieces {
			switch v.form {
			case varBool:
				if p.rep == val {
					idx[i] = j
				}
			case varStr:
				if p.rep == val || (p.other && idx[i] < 0 && !slices.Contains(v.literals, val.(string))) {
					idx[i] = j
				}
			case varNum:
				x := num(val)
				if (x > p.lo || x == p.lo && p.loIn) && (x < p.hi || x == p.hi && p.hiIn) {
					idx[i] = j
				}
			case varDiff:
				if sp.opaqueVar(i) {
					idx[i] = 0
					continue
				}
				d := cmpSign(num(val), num(facts[v.fields[1].kind][v.fields[1].field]))
				if int(p.rep.(float64)) == d {
					idx[i] = j
				}
			}
		}
		if idx[i] < 0 {
			return nil, false
		}
	}
	return idx, true
}

// randomPoint draws values near the thresholds, on them, at domain ends and at random.
func randomPoint(rs *ruleset.RuleSet, sp *space, rng *rand.Rand) (Witness, bool) {
	var w Witness
	for _, k := range rs.Kinds() {
		if k.Many || k.Name == ruleset.KindObjective {
			continue
		}
		if pv, ok := sp.byName[k.Name]; ok && len(sp.vars[pv].pieces) == 2 && rng.IntN(4) == 0 {
			w.Absent = append(w.Absent, k.Name)
			continue
		}
		wf := WitnessFact{Kind: k.Name}
		for _, f := range k.Fields {
			ref := sp.fieldRef(k.Name, f)
			var cuts []float64
			if vi, ok := sp.byName[ref.name()]; ok {
				for x := range sp.vars[vi].thresholds {
					cuts = append(cuts, x)
				}
				slices.Sort(cuts)
			}
			val, ok := randomValue(ref, cuts, rng)
			if !ok {
				return w, false
			}
			wf.Fields = append(wf.Fields, FieldValue{Name: f.Name, Value: typed(f.Type, val)})
		}
		w.Facts = append(w.Facts, wf)
	}
	return w, true
}

func randomValue(f fieldRef, cuts []float64, rng *rand.Rand) (any, bool) {
	switch f.ftype {
	case ruleset.TypeBool:
		return rng.IntN(2) == 0, true
	case ruleset.TypeString:
		if f.strSet != nil {
			return f.strSet[rng.IntN(len(f.strSet))], true
		}
		return []string{"a", "b", "c", "", "zz"}[rng.IntN(5)], true
	case ruleset.TypeStrings:
		return []string{"a", "b", "c"}[:rng.IntN(4)], true
	}
	if f.numSet != nil {
		return f.numSet[rng.IntN(len(f.numSet))], true
	}
	var cands []float64
	for _, c := range cuts {
		cands = append(cands, c, math.Nextafter(c, math.Inf(1)), math.Nextafter(c, math.Inf(-1)), c+1, c-1)
	}
	lo, hi := math.Max(f.lo, -5), math.Min(f.hi, 5)
	cands = append(cands, lo, hi, lo+rng.Float64()*(hi-lo))
	x := cands[rng.IntN(len(cands))]
	if f.integer {
		x = math.Round(x)
	}
	return x, x >= f.lo && x <= f.hi
}
