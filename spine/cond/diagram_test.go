package cond

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestDiagramMatchesLookup checks the diagram against the key-by-key lookup on random
// conditions and random inputs: every rule's outcome must be the same both ways. The
// seed is printed on failure.
func TestDiagramMatchesLookup(t *testing.T) {
	seeds := 400
	if testing.Short() {
		seeds = 50
	}
	built := 0
	for seed := range uint64(seeds) {
		rng := rand.New(rand.NewPCG(seed, 0x64616721))
		conds := make([]*Node, 1+rng.IntN(12))
		for i := range conds {
			if rng.IntN(10) > 0 {
				conds[i] = randomCond(rng, 1+rng.IntN(3))
			}
		}
		m := Compile(conds)
		if m.diagram == nil {
			continue
		}
		built++
		set := make([]uint64, m.Words())
		want := make([]uint8, len(conds))
		for trial := range 200 {
			in := randomInput(rng, m)
			got, leaf := m.Decide(&in, set, nil)
			m.decideByKeys(&in, set, want)
			for i := range conds {
				if got[i] != want[i] {
					t.Fatalf("seed %d trial %d: rule %d (%s): the diagram gives %d (leaf %d), the lookup %d\ninput %+v",
						seed, trial, i, describe(conds[i]), got[i], leaf, want[i], in)
				}
			}
		}
	}
	if built < seeds*9/10 {
		t.Errorf("only %d of %d random rule sets got a diagram", built, seeds)
	}
}

// TestDiagramTooLarge: rules over many independent keys would make a diagram with the
// product of their regions; the matcher looks keys up one by one instead, and still
// decides.
func TestDiagramTooLarge(t *testing.T) {
	var conds []*Node
	for f := range 40 {
		for k := range 3 {
			conds = append(conds, &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: f, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: float64(k)}}})
		}
	}
	m := Compile(conds)
	if m.diagram != nil {
		t.Fatalf("a diagram of %d nodes was built", len(m.diagram.nodes))
	}
	in := m.NewInput(1)
	in.SetPresent(0, true)
	for i := range in.Num {
		in.Num[i] = 1.5
	}
	out, leaf := m.Decide(&in, make([]uint64, m.Words()), make([]uint8, len(conds)))
	if leaf != -1 {
		t.Errorf("leaf = %d without a diagram", leaf)
	}
	for i, o := range out {
		if want := uint8(b2i(i%3 < 2)); o != want { // > 0 and > 1 hold at 1.5, > 2 not
			t.Fatalf("rule %d: %d, want %d", i, o, want)
		}
	}
}

// TestDiagramEndsEarly: a walk stops as soon as every rule is decided.
func TestDiagramEndsEarly(t *testing.T) {
	round := func(cmp string, k int64) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: 0, Type: TInt, Cmp: cmp, K: Const{T: TInt, I: k}}}
	}
	x := func(k float64) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 0, Field: 1, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: k}}}
	}
	and := func(l, r *Node) *Node { return &Node{Op: OpAnd, L: l, R: r} }
	conds := []*Node{round("==", 0), and(round(">", 0), x(1)), and(round(">", 0), x(2))}
	m := Compile(conds)
	in := m.NewInput(1)
	in.SetPresent(0, true)
	steps := func() int {
		n, c := 0, m.diagram.root
		for c >= 0 {
			nd := &m.diagram.nodes[c]
			c = m.diagram.kids[nd.kids+int32(m.keys[nd.key].region(&in))]
			n++
		}
		return n
	}
	if got := steps(); got != 2 { // presence, round
		t.Errorf("round 0: %d lookups, want 2", got)
	}
	in.Int[0] = 3
	if got := steps(); got != 3 { // presence, round, x
		t.Errorf("round 3: %d lookups, want 3", got)
	}
}

var (
	testFloats = []float64{0, 1, -1, 0.5, 2.5, 1e300, -1e300, math.Inf(1), math.Inf(-1), math.NaN(), math.SmallestNonzeroFloat64}
	testInts   = []int64{0, 1, -1, 2, 3, 1 << 53, -(1 << 53), math.MaxInt64, math.MinInt64}
	testStrs   = []string{"", "a", "b"}
	testFns    = []string{"", "", "", "a", "-", "a-"}
	testCmps   = []string{"==", "!=", "<", "<=", ">", ">="}
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

// TestDiagramKnownBeforeNeed: a rule whose value is known from one kind's presence
// while another kind it needs is still to be looked up keeps that value apart from the
// undecided states. k0's presence is looked up first: its key comes first.
func TestDiagramKnownBeforeNeed(t *testing.T) {
	present := func(kind int, want bool) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestPresent, Kind: kind, Want: want}}
	}
	x := &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: 1, Field: 0, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: 1}}}
	conds := []*Node{{Op: OpAnd, L: present(0, true), R: x}}
	m := Compile(conds)
	if m.diagram == nil {
		t.Fatal("no diagram")
	}
	want := make([]uint8, len(conds))
	for _, k0 := range []bool{false, true} {
		for _, k1 := range []bool{false, true} {
			for _, v := range []float64{0, 2} {
				in := m.NewInput(2)
				in.SetPresent(0, k0)
				in.SetPresent(1, k1)
				in.Num[0] = v
				got, _ := m.Decide(&in, make([]uint64, m.Words()), nil)
				m.decideByKeys(&in, make([]uint64, m.Words()), want)
				if string(got) != string(want) {
					t.Errorf("k0 %v, k1 %v, x %v: the diagram gives %v, the lookup %v", k0, k1, v, got, want)
				}
			}
		}
	}
}
