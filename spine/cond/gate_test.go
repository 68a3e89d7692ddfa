package cond

import (
	"math/rand/v2"
	"testing"
)

// TestGatedParts: rules that open with the presence of two kinds are cut into a part per
// kind; a part whose gate is absent decides its rules false (the VM's, for a rule only
// the VM evaluates) without a lookup, and the leaves of the parts are numbered together,
// so that one leaf is one set of outcomes.
func TestGatedParts(t *testing.T) {
	present := func(kind int) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestPresent, Kind: kind, Want: true}}
	}
	gt := func(kind, field int, k float64) *Node {
		return &Node{Op: OpAtom, Atom: Atom{Test: TestCompare, Kind: kind, Field: field, Type: TFloat, Cmp: ">", K: Const{T: TFloat, F: k}}}
	}
	and := func(l, r *Node) *Node { return &Node{Op: OpAnd, L: l, R: r} }
	conds := []*Node{
		and(present(0), gt(0, 0, 1)), and(present(0), gt(0, 0, 2)), and(present(0), gt(0, 1, 0)),
		and(present(1), gt(1, 2, 0)), and(present(1), gt(1, 2, 5)),
		{Op: OpNot, L: &Node{Op: OpAtom, Atom: Atom{Test: TestPresent, Kind: 2, Want: false}}}, // !(k2 == nil)
	}
	m := checkDirect(t, "gates", rand.New(rand.NewPCG(7, 8)), conds, 500)
	if m.Parts() != 3 {
		t.Fatalf("%d parts, want one per gate", m.Parts())
	}
	for i, want := range []int{0, 0, 0, 1, 1, 2} {
		if got := m.PartOf(i); got != want {
			t.Errorf("rule %d in part %d, want %d", i, got, want)
		}
	}
	if m.Leaves() == 0 {
		t.Fatal("the parts' leaves are not numbered")
	}
	byLeaf := map[int]string{}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 500 {
		in := randomInput(rng, m)
		got, leaf := m.Decide(&in, make([]uint8, len(conds)))
		if leaf < 0 || leaf >= m.Leaves() {
			t.Fatalf("leaf %d of %d", leaf, m.Leaves())
		}
		if prev, ok := byLeaf[leaf]; ok && prev != string(got) {
			t.Fatalf("leaf %d gives %v and %v", leaf, []byte(prev), got)
		}
		byLeaf[leaf] = string(got)
		if !in.Present[1] && (got[3] != False || got[4] != False) {
			t.Errorf("gate 1 absent: outcomes %v", got)
		}
	}
	// Gate 0 present, gate 1 absent: only part 0's table is read, and its outcomes are
	// those of the part alone.
	in := m.NewInput(3)
	in.SetPresent(0, true)
	in.Num[0] = 1.5
	got, _ := m.Decide(&in, make([]uint8, len(conds)))
	if want := []uint8{True, False, False, False, False, False}; string(got) != string(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
}
