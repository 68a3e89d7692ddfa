package cond

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestMatcherMatchesDirect checks the matcher against a direct evaluation of the
// conditions on random inputs: each atom compared as Go compares the values, no regions.
// The seed is printed on failure.
func TestMatcherMatchesDirect(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 0x64616721))
		conds := make([]*Node, 1+rng.IntN(12))
		for i := range conds {
			if rng.IntN(10) > 0 {
				conds[i] = randomCond(rng, 1+rng.IntN(3))
			}
		}
		checkDirect(t, fmt.Sprintf("seed %d", seed), rng, conds, 200)
	}
}

// checkDirect compares Decide with direct on trials random inputs.
func checkDirect(t *testing.T, name string, rng *rand.Rand, conds []*Node, trials int) *Matcher {
	t.Helper()
	m := Compile(conds)
	out := make([]uint8, len(conds))
	for trial := range trials {
		in := randomInput(rng, m)
		got, leaf := m.Decide(&in, out)
		for i, c := range conds {
			want := direct(m, &in, c)
			if p := m.PartOf(i); p >= 0 && m.parts[p].gate >= 0 && !in.Present[m.parts[p].gate] {
				want = False // a part whose gate is absent: expr stops at the first conjunct
			}
			if c != nil && !m.Analysable(i) {
				want = VM
			}
			if got[i] != want {
				t.Fatalf("%s trial %d: rule %d (%s): the matcher gives %d (leaf %d), direct %d\ninput %+v",
					name, trial, i, describe(c), got[i], leaf, want, in)
			}
		}
	}
	return m
}

// direct is a condition's outcome on in, evaluated on the values themselves.
func direct(m *Matcher, in *Input, c *Node) uint8 {
	if c == nil {
		return VM
	}
	vm := false // an opaque part, or an atom on an absent kind
	c.Walk(func(n *Node) {
		vm = vm || n.Op == OpOpaque || n.Op == OpAtom && n.Atom.ReadsField() && !in.Present[n.Atom.Kind]
	})
	if vm {
		return VM
	}
	return uint8(b2i(directBool(m, in, c)))
}

func directBool(m *Matcher, in *Input, n *Node) bool {
	switch n.Op {
	case OpConst:
		return n.Value
	case OpNot:
		return !directBool(m, in, n.L)
	case OpAnd:
		return directBool(m, in, n.L) && directBool(m, in, n.R)
	case OpOr:
		return directBool(m, in, n.L) || directBool(m, in, n.R)
	}
	a := n.Atom
	if a.Test == TestPresent {
		return in.Present[a.Kind] == a.Want
	}
	slot := slices.Index(m.Slots(), Slot{Kind: a.Kind, Field: a.Field, Type: a.Type})
	switch a.Test {
	case TestBool:
		return in.Bool[slot] == a.Want
	case TestString:
		return (in.Str[slot] == a.K.S) == (a.Cmp == "==")
	}
	if a.Type == TInt && a.K.T == TInt {
		return compare(a.Cmp, term(in.Int[slot], a.Fn), a.K.I)
	}
	v := term(in.Num[slot], a.Fn)
	if a.Type == TInt {
		v = float64(term(in.Int[slot], a.Fn))
	}
	return compare(a.Cmp, v, a.K.float())
}

// TestMatcherSplits: rules over many independent keys would make a table with the
// product of their regions; the matcher splits their parts, each deciding some, and
// still decides every rule.
func TestMatcherSplits(t *testing.T) {
	var conds []*Node
	for f := range 40 {
		for k := range 3 {
			conds = append(conds, &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: f % 3, Field: f, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: float64(k)}}})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	m := checkDirect(t, "split", rng, conds, 500)
	if min := (len(conds) + partRules - 1) / partRules; len(m.parts) <= min {
		t.Fatalf("%d parts, want more than %d", len(m.parts), min)
	}
	if _, leaf := m.Decide(&Input{Present: []bool{true, true, true}, Num: make([]float64, 40)}, make([]uint8, len(conds))); leaf != -1 {
		t.Errorf("leaf = %d with several tables", leaf)
	}
	for i := range conds {
		if !m.Analysable(i) {
			t.Errorf("rule %d is left to the VM", i)
		}
	}
}

// TestTableMergesRegions: regions of a key on which every atom has the same truth are
// one class, and the table has a cell per combination of classes.
func TestTableMergesRegions(t *testing.T) {
	round := func(cmp string, k int64) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: 0, Type: TInt, Cmp: cmp, K: Const{T: TInt, I: k}}}
	}
	x := func(k float64) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: 1, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: k}}}
	}
	and := func(l, r *Node) *Node { return &Node{Op: OpAnd, L: l, R: r} }
	conds := []*Node{round("==", 0), and(round(">", 0), x(1)), and(round(">", 0), x(2))}
	m := checkDirect(t, "merge", rand.New(rand.NewPCG(5, 6)), conds, 300)
	// Presence 2 × round 3 (below 0, 0, above) × x 3 (up to 1 or NaN, up to 2, above).
	if got := len(m.parts[0].t.cells); got != 18 {
		t.Errorf("%d cells, want 18", got)
	}
	// Absent; round 0; round above, x up to 1; round above, x in (1, 2]; above both.
	if got := len(m.parts[0].t.leaves); got != 5 {
		t.Errorf("%d leaves, want 5", got)
	}
}

var (
	testFloats = []float64{0, 1, -1, 0.5, 2.5, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64,
		math.Copysign(0, -1), 1<<53 + 2, math.MaxFloat64}
	testInts = []int64{0, 1, -1, 2, 3, 1 << 53, -(1 << 53), 1<<53 + 1, 1<<53 + 3, math.MaxInt64, math.MinInt64, math.MaxInt64 - 1}
	testStrs = []string{"", "a", "b"}
	testFns  = []string{"", "", "", "a", "-", "a-"}
	testCmps = []string{"==", "!=", "<", "<=", ">", ">="}
)

// Fields of the random kinds: 0-1 float, 2-3 int, 4 bool, 5 string.
func fieldType(f int) Type {
	switch f {
	case 0, 1:
		return TFloat
	case 2, 3:
		return TInt
	case 4:
		return TBool
	}
	return TString
}

func randomCond(rng *rand.Rand, depth int) *Node {
	if depth == 0 || rng.IntN(3) == 0 {
		return randomAtom(rng)
	}
	switch rng.IntN(8) {
	case 0:
		return &Node{Op: OpNot, L: randomCond(rng, depth-1)}
	case 1:
		return &Node{Op: OpConst, Value: rng.IntN(2) == 0}
	case 2:
		return &Node{Op: OpOpaque, Reason: "test"}
	case 3, 4:
		return &Node{Op: OpOr, L: randomCond(rng, depth-1), R: randomCond(rng, depth-1)}
	}
	return &Node{Op: OpAnd, L: randomCond(rng, depth-1), R: randomCond(rng, depth-1)}
}

func randomAtom(rng *rand.Rand) *Node {
	kind, f := rng.IntN(3), rng.IntN(6)
	a := Atom{Kind: kind, Field: f, Type: fieldType(f)}
	switch {
	case rng.IntN(6) == 0:
		a.Test, a.Want = TestPresent, rng.IntN(2) == 0
		a.Field, a.Type = 0, TOther
	case a.Type == TBool:
		a.Test, a.Want = TestBool, rng.IntN(2) == 0
	case a.Type == TString:
		a.Test, a.Cmp = TestString, testCmps[rng.IntN(2)]
		a.K = Const{T: TString, S: testStrs[rng.IntN(len(testStrs))]}
	default:
		a.Test, a.Cmp, a.Fn = TestCompare, testCmps[rng.IntN(len(testCmps))], testFns[rng.IntN(len(testFns))]
		if rng.IntN(2) == 0 {
			a.K = Const{T: TInt, I: testInts[rng.IntN(len(testInts))]}
		} else {
			a.K = Const{T: TFloat, F: testFloats[rng.IntN(len(testFloats))]}
		}
	}
	return &Node{Op: OpAtom, Atom: a}
}

func randomInput(rng *rand.Rand, m *Matcher) Input {
	in := m.NewInput(3)
	for k := range 3 {
		in.SetPresent(k, rng.IntN(4) > 0)
	}
	for i, s := range m.Slots() {
		switch s.Type {
		case TFloat:
			in.Num[i] = testFloats[rng.IntN(len(testFloats))]
		case TInt:
			in.Int[i] = testInts[rng.IntN(len(testInts))]
		case TBool:
			in.Bool[i] = rng.IntN(2) == 0
		case TString:
			in.Str[i] = testStrs[rng.IntN(len(testStrs))]
		}
	}
	return in
}

func describe(n *Node) string {
	if n == nil {
		return "vm"
	}
	switch n.Op {
	case OpConst:
		return fmt.Sprint(n.Value)
	case OpOpaque:
		return "opaque"
	case OpNot:
		return "!(" + describe(n.L) + ")"
	case OpAnd, OpOr:
		op := map[Op]string{OpAnd: " && ", OpOr: " || "}[n.Op]
		return "(" + describe(n.L) + op + describe(n.R) + ")"
	}
	a := n.Atom
	var b strings.Builder
	fmt.Fprintf(&b, "k%d", a.Kind)
	switch a.Test {
	case TestPresent:
		fmt.Fprintf(&b, " present=%v", a.Want)
	case TestBool:
		fmt.Fprintf(&b, ".f%d==%v", a.Field, a.Want)
	case TestString:
		fmt.Fprintf(&b, ".f%d %s %q", a.Field, a.Cmp, a.K.S)
	default:
		fmt.Fprintf(&b, ".f%d(%s) %s %v", a.Field, a.Fn, a.Cmp, map[Type]any{TInt: a.K.I, TFloat: a.K.F}[a.K.T])
	}
	return b.String()
}

// TestTableKnownBeforeNeed: a rule whose value is known from one kind's presence
// while another kind it needs is still to be looked up keeps that value apart from the
// undecided states. k0's presence is looked up first: its key comes first.
func TestTableKnownBeforeNeed(t *testing.T) {
	present := func(kind int, want bool) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestPresent, Kind: kind, Want: want}}
	}
	x := &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 1, Field: 0, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: 1}}}
	conds := []*Node{{Op: OpAnd, L: present(0, true), R: x}}
	m := Compile(conds)
	for _, k0 := range []bool{false, true} {
		for _, k1 := range []bool{false, true} {
			for _, v := range []float64{0, 2} {
				in := m.NewInput(2)
				in.SetPresent(0, k0)
				in.SetPresent(1, k1)
				in.Num[0] = v
				got, _ := m.Decide(&in, nil)
				if want := direct(m, &in, conds[0]); got[0] != want {
					t.Errorf("k0 %v, k1 %v, x %v: the matcher gives %v, direct %v", k0, k1, v, got[0], want)
				}
			}
		}
	}
}

// TestMatcherPartsGrowBack: after wide rules force small parts, the narrow rules after
// them are again cut into parts of partRules.
func TestMatcherPartsGrowBack(t *testing.T) {
	atom := func(field int, k float64) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: field, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: k}}}
	}
	and := func(l, r *Node) *Node { return &Node{Op: OpAnd, L: l, R: r} }
	var conds []*Node
	for i := range 48 { // each reads four fields with constants of its own
		conds = append(conds, and(and(atom(4*i, 1), atom(4*i+1, 2)), and(atom(4*i+2, 3), atom(4*i+3, float64(i)))))
	}
	for i := range 80 { // all read one field
		conds = append(conds, atom(200, float64(i%5)))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	m := checkDirect(t, "grow back", rng, conds, 300)
	if n := len(m.parts[0].index); n == partRules {
		t.Errorf("the first part holds %d wide rules; want it halved", n)
	}
	if !slices.ContainsFunc(m.parts, func(p *part) bool { return len(p.index) == partRules }) {
		t.Errorf("no part of the narrow rules holds %d", partRules)
	}
	covered := 0
	for _, p := range m.parts {
		covered += len(p.index)
	}
	if covered != len(conds) {
		t.Errorf("the parts hold %d rules, want %d", covered, len(conds))
	}
}

// TestTableEdges: keys with more tests than a lookup makes go through key.region, and
// values whose sum is NaN without any being NaN (+Inf and -Inf) find their own cells.
func TestTableEdges(t *testing.T) {
	cmpAtom := func(field int, typ Type, cmp string, k Const) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: field, Type: typ, Cmp: cmp, K: k}}
	}
	var conds []*Node
	for k := range 12 {
		conds = append(conds, cmpAtom(0, TFloat, ">", Const{T: TFloat, F: float64(k)}), cmpAtom(2, TInt, "==", Const{T: TInt, I: int64(k)}))
	}
	m := checkDirect(t, "many", rand.New(rand.NewPCG(7, 8)), conds, 300)
	if len(m.parts) == 0 || len(m.parts[0].t.other) == 0 {
		t.Fatalf("no key of the first part is looked up through key.region")
	}
	conds = []*Node{cmpAtom(0, TFloat, "<=", Const{T: TFloat, F: 1}), cmpAtom(1, TFloat, "<=", Const{T: TFloat, F: 1})}
	m = Compile(conds)
	for _, v := range [][2]float64{{math.Inf(1), math.Inf(-1)}, {math.NaN(), 0}, {math.Inf(-1), math.NaN()}, {2, 0}} {
		in := m.NewInput(1)
		in.SetPresent(0, true)
		in.Num[0], in.Num[1] = v[0], v[1]
		got, _ := m.Decide(&in, make([]uint8, 2))
		for i, c := range conds {
			if want := direct(m, &in, c); got[i] != want {
				t.Errorf("x %v, y %v: rule %d gives %d, direct %d", v[0], v[1], i, got[i], want)
			}
		}
	}
}
