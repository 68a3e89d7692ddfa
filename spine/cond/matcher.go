package cond

import (
	"math"
	"slices"
)

// A Matcher decides every analysable condition of a rule set from one lookup per fact
// field. Each field a condition reads (through the same negations and abs, compared in
// the same number domain) is a key; the constants it is compared against, sorted, cut
// its values into regions, and within a region every atom on the key has one truth
// value. A lookup finds each key's region and ORs the region's precomputed atom set into
// a bit set; a rule that is a conjunction of atoms is then one mask test, any other
// and/or/not a walk over its atoms' bits.
//
// The lookup is exact only when no atom can fail: a rule that reads a field of a kind
// whose fact is absent, and an opaque rule, is left to expr's VM (Rule's ok is false),
// which gives its result or its error as it always has.
type Matcher struct {
	slots []Slot
	keys  []key
	words int // length of the atom bit set
	rules []rule
	// atomKey is each atom's key, by atom id.
	atomKey []int
	// diagram decides every rule in one walk; nil when it would be too large, and
	// Decide then looks each key up.
	diagram *diagram
}

// Slot is one fact field the matcher reads; Input holds its value at the slot's index.
type Slot struct {
	Kind, Field int
	Type        Type
}

// Input is the state of working memory the matcher reads: each kind's presence (by kind
// index) and each slot's value in the array of its type.
type Input struct {
	Present []bool // set through SetPresent
	absent  uint64 // bit k: kind k (below 64) is absent
	Num     []float64
	Int     []int64
	Bool    []bool
	Str     []string
}

// key classes.
const (
	kPresent = iota
	kBool
	kString
	kInt   // an int term compared with int constants, in int64
	kFloat // a term compared in float64 (a float field, or an int one against a float)
)

type key struct {
	class uint8
	int   bool // kFloat: the field is an int, converted after fn
	kind  int
	slot  int
	fn    string
	ithr  []int64   // kInt: sorted thresholds
	fthr  []float64 // kFloat: sorted thresholds, no NaN
	sthr  []string  // kString: the literals
	// region → the atoms that hold there, as words of the bit set. Regions of a
	// threshold key: 2i below thresholds[i], 2i+1 equal to it, 2n above all, 2n+1 NaN.
	// Only the words that are not zero are kept: a key's atoms are few among many.
	bits [][]wordBits
	// bits1 is bits when the set is one word, the common case: no inner loop.
	bits1 []uint64
}

// wordBits is a word of the atom set that is not zero.
type wordBits struct {
	w int
	x uint64
}

// rule is one condition, compiled.
type rule struct {
	vm       bool   // opaque: only the VM evaluates it
	need     []int  // kinds whose fields it reads: all must be present
	needMask uint64 // need as bits, when every kind in it is below 64
	needBig  bool   // some kind in need is 64 or above: check the list
	keys     []int  // the keys its atoms read
	form     uint8  // fConst, fAll, fAny, fTree
	value    bool   // fConst
	mask     []uint64
	tree     []tnode // fTree, root last
}

const (
	fConst = iota
	fAll   // every atom of mask holds
	fAny   // some atom of mask holds
	fTree
)

// tnode is a node of a condition in negation normal form: a literal (an atom, negations
// being atoms of their own) or an and/or of earlier nodes.
type tnode struct {
	op   uint8 // 0 atom, 1 and, 2 or, 3 const
	atom int
	val  bool
	kids []int
}

// atomDef is a registered atom: the key it reads and how it is tested.
type atomDef struct {
	key int
	a   Atom
	neg bool
}

// builder registers keys and atoms while rules are compiled.
type builder struct {
	cur    *rule // the rule being compiled
	m      *Matcher
	slotIx map[[2]int]int
	keyIx  map[keyID]int
	atomIx map[atomID]int
	atoms  []atomDef
}

type keyID struct {
	class      uint8
	kind, slot int
	fn         string
}

type atomID struct {
	key  int
	a    Atom
	neg  bool
	fnan bool // the float constant is NaN: NaN != NaN, so the key alone would not dedupe it
}

// Compile builds the matcher of a rule set's conditions, one per rule in the order given;
// nil stands for a rule that only the VM evaluates.
func Compile(conds []*Node) *Matcher {
	b := &builder{m: &Matcher{}, slotIx: map[[2]int]int{}, keyIx: map[keyID]int{}, atomIx: map[atomID]int{}}
	for _, c := range conds {
		b.m.rules = append(b.m.rules, b.rule(c))
	}
	// Every kind a rule needs has a presence key, which the diagram looks up first.
	presence := map[int]int{}
	for _, r := range b.m.rules {
		for _, k := range r.need {
			presence[k] = b.key(keyID{class: kPresent, kind: k}, false)
		}
	}
	b.tables()
	for _, d := range b.atoms {
		b.m.atomKey = append(b.m.atomKey, d.key)
	}
	b.m.diagram = buildDiagram(b.m, presence)
	return b.m
}

// Slots lists the fields the matcher reads, in slot order.
func (m *Matcher) Slots() []Slot { return m.slots }

// NewInput returns an Input sized for the matcher and nkinds kinds, every kind absent.
func (m *Matcher) NewInput(nkinds int) Input {
	n := len(m.slots)
	return Input{Present: make([]bool, nkinds), absent: ^uint64(0), Num: make([]float64, n), Int: make([]int64, n), Bool: make([]bool, n), Str: make([]string, n)}
}

// SetPresent records whether kind k's fact exists.
func (in *Input) SetPresent(k int, has bool) {
	in.Present[k] = has
	if k < 64 {
		in.absent &^= 1 << k
		if !has {
			in.absent |= 1 << k
		}
	}
}

// Words is the length of the bit set Lookup fills.
func (m *Matcher) Words() int { return m.words }

func (b *builder) rule(c *Node) rule {
	if c == nil || c.Opaque() {
		return rule{vm: true}
	}
	var r rule
	b.cur = &r
	defer func() { b.cur = nil }()
	c.Walk(func(n *Node) {
		if n.Op == OpAtom && n.Atom.ReadsField() && !slices.Contains(r.need, n.Atom.Kind) {
			r.need = append(r.need, n.Atom.Kind)
		}
	})
	slices.Sort(r.need)
	for _, k := range r.need {
		if k >= 64 {
			r.needBig = true
		} else {
			r.needMask |= 1 << k
		}
	}
	// With every kind it reads present no atom can fail, so the order in which expr
	// would evaluate them cannot change the result, and negations move to the atoms.
	var tree []tnode
	root := b.nnf(c, false, &tree)
	t := tree[root]
	switch {
	case t.op == 3:
		r.form, r.value = fConst, t.val
	case t.op == 0:
		r.form, r.mask = fAll, b.maskOf(tree, []int{root})
	case t.op == 1 && allAtoms(tree, t.kids):
		r.form, r.mask = fAll, b.maskOf(tree, t.kids)
	case t.op == 2 && allAtoms(tree, t.kids):
		r.form, r.mask = fAny, b.maskOf(tree, t.kids)
	default:
		r.form, r.tree = fTree, tree[:root+1]
	}
	return r
}

func allAtoms(tree []tnode, kids []int) bool {
	for _, k := range kids {
		if tree[k].op != 0 {
			return false
		}
	}
	return true
}

// maskOf is a bit set of the atoms of nodes, filled in once every atom is known (see
// tables); until then it holds the atom ids in its words' place.
func (b *builder) maskOf(tree []tnode, nodes []int) []uint64 {
	ids := make([]uint64, len(nodes))
	for i, n := range nodes {
		ids[i] = uint64(tree[n].atom)
	}
	return ids
}

// nnf appends n, negated when neg, to tree in negation normal form with constants folded,
// and returns its index. And and or nodes are flattened.
func (b *builder) nnf(n *Node, neg bool, tree *[]tnode) int {
	add := func(t tnode) int { *tree = append(*tree, t); return len(*tree) - 1 }
	switch n.Op {
	case OpConst:
		return add(tnode{op: 3, val: n.Value != neg})
	case OpAtom:
		return add(tnode{op: 0, atom: b.atom(n.Atom, neg)})
	case OpNot:
		return b.nnf(n.L, !neg, tree)
	}
	isAnd := (n.Op == OpAnd) != neg
	op := uint8(2)
	if isAnd {
		op = 1
	}
	var kids []int
	for _, side := range []*Node{n.L, n.R} {
		k := b.nnf(side, neg, tree)
		t := (*tree)[k]
		switch {
		case t.op == 3 && t.val == isAnd: // true in an and, false in an or: no effect
		case t.op == 3:
			return add(tnode{op: 3, val: !isAnd}) // decides the whole
		case t.op == op:
			kids = append(kids, t.kids...)
		default:
			kids = append(kids, k)
		}
	}
	switch len(kids) {
	case 0:
		return add(tnode{op: 3, val: isAnd})
	case 1:
		return kids[0]
	}
	return add(tnode{op: op, kids: kids})
}

func (b *builder) slot(kind, field int, t Type) int {
	id := [2]int{kind, field}
	if i, ok := b.slotIx[id]; ok {
		return i
	}
	b.slotIx[id] = len(b.m.slots)
	b.m.slots = append(b.m.slots, Slot{Kind: kind, Field: field, Type: t})
	return len(b.m.slots) - 1
}

// atom registers the atom (negated when neg) and returns its id.
func (b *builder) atom(a Atom, neg bool) int {
	id := keyID{kind: a.Kind}
	switch a.Test {
	case TestPresent:
		id.class = kPresent
	case TestBool:
		id.class, id.slot = kBool, b.slot(a.Kind, a.Field, a.Type)
	case TestString:
		id.class, id.slot = kString, b.slot(a.Kind, a.Field, a.Type)
	case TestCompare:
		id.class, id.slot, id.fn = kFloat, b.slot(a.Kind, a.Field, a.Type), a.Fn
		if a.Type == TInt && a.K.T == TInt {
			id.class = kInt
		}
	}
	k := b.key(id, a.Test == TestCompare && a.Type == TInt)
	if a.Test == TestCompare {
		key := &b.m.keys[k]
		if id.class == kInt {
			key.ithr = append(key.ithr, a.K.I)
		} else if f := a.K.float(); !math.IsNaN(f) {
			key.fthr = append(key.fthr, f)
		}
	}
	if a.Test == TestString && !slices.Contains(b.m.keys[k].sthr, a.K.S) {
		b.m.keys[k].sthr = append(b.m.keys[k].sthr, a.K.S)
	}
	if b.cur != nil && !slices.Contains(b.cur.keys, k) {
		b.cur.keys = append(b.cur.keys, k)
	}
	aid := atomID{key: k, a: a, neg: neg, fnan: a.K.T == TFloat && math.IsNaN(a.K.F)}
	if aid.fnan {
		aid.a.K.F = 0
	}
	if i, ok := b.atomIx[aid]; ok {
		return i
	}
	b.atomIx[aid] = len(b.atoms)
	b.atoms = append(b.atoms, atomDef{key: k, a: a, neg: neg})
	return len(b.atoms) - 1
}

// key returns the index of the key id, registering it when it is new; isInt is key.int.
func (b *builder) key(id keyID, isInt bool) int {
	k, ok := b.keyIx[id]
	if !ok {
		k = len(b.m.keys)
		b.keyIx[id] = k
		b.m.keys = append(b.m.keys, key{class: id.class, kind: id.kind, slot: id.slot, fn: id.fn, int: isInt})
	}
	return k
}

// tables sorts each key's thresholds, computes each region's atom set and turns the
// rules' atom ids into masks.
func (b *builder) tables() {
	m := b.m
	m.words = (len(b.atoms) + 63) / 64
	for i := range m.keys {
		k := &m.keys[i]
		slices.Sort(k.ithr)
		k.ithr = slices.Compact(k.ithr)
		slices.Sort(k.fthr)
		k.fthr = slices.CompactFunc(k.fthr, func(a, b float64) bool { return a == b })
		k.bits = make([][]wordBits, k.regions())
	}
	for id, d := range b.atoms { // in id order, so a word's bits arrive together
		k := &m.keys[d.key]
		w, bit := id/64, uint64(1)<<(id%64)
		for r := range k.bits {
			if k.holds(r, &d.a) == d.neg {
				continue
			}
			if n := len(k.bits[r]); n > 0 && k.bits[r][n-1].w == w {
				k.bits[r][n-1].x |= bit
			} else {
				k.bits[r] = append(k.bits[r], wordBits{w, bit})
			}
		}
	}
	if m.words == 1 {
		for i := range m.keys {
			k := &m.keys[i]
			k.bits1 = make([]uint64, len(k.bits))
			for r, ws := range k.bits {
				for _, wb := range ws {
					k.bits1[r] |= wb.x
				}
			}
		}
	}
	for i := range m.rules {
		r := &m.rules[i]
		if r.mask != nil {
			ids := r.mask
			r.mask = make([]uint64, m.words)
			for _, id := range ids {
				r.mask[id/64] |= 1 << (id % 64)
			}
		}
	}
}

func (k *key) regions() int {
	switch k.class {
	case kPresent, kBool:
		return 2
	case kString:
		return len(k.sthr) + 1
	case kInt:
		return 2*len(k.ithr) + 1
	}
	return 2*len(k.fthr) + 2
}

// holds evaluates the atom on a value of region r, as expr would.
func (k *key) holds(r int, a *Atom) bool {
	switch k.class {
	case kPresent, kBool:
		return (r == 1) == a.Want
	case kString:
		eq := r < len(k.sthr) && k.sthr[r] == a.K.S
		return eq == (a.Cmp == "==")
	case kInt:
		v, ok := intRep(k.ithr, r)
		if !ok {
			return false // no value lies in the region
		}
		return compare(a.Cmp, v, a.K.I)
	}
	return compare(a.Cmp, floatRep(k.fthr, r), a.K.float())
}

// intRep is a value of region r of the sorted thresholds t.
func intRep(t []int64, r int) (int64, bool) {
	i := r / 2
	if r%2 == 1 {
		return t[i], true
	}
	switch {
	case len(t) == 0:
		return 0, true
	case i == 0:
		return t[0] - 1, t[0] != math.MinInt64
	case i == len(t):
		return t[i-1] + 1, t[i-1] != math.MaxInt64
	}
	return t[i-1] + 1, t[i-1]+1 < t[i]
}

// floatRep is a value of region r of the sorted thresholds t (NaN for the last region).
// An empty region gets some value: it is never looked up.
func floatRep(t []float64, r int) float64 {
	i := r / 2
	switch {
	case r == 2*len(t)+1:
		return math.NaN()
	case r%2 == 1:
		return t[i]
	case len(t) == 0:
		return 0
	case i == 0:
		return math.Nextafter(t[0], math.Inf(-1))
	case i == len(t):
		return math.Nextafter(t[i-1], math.Inf(1))
	case math.IsInf(t[i-1], -1):
		return math.Nextafter(t[i], math.Inf(-1))
	case math.IsInf(t[i], 1):
		return math.Nextafter(t[i-1], math.Inf(1))
	}
	return t[i-1]/2 + t[i]/2
}

// Lookup fills set (Words long) with the atoms that hold on in.
func (m *Matcher) Lookup(in *Input, set []uint64) {
	if m.words == 1 {
		var acc uint64
		for i := range m.keys {
			k := &m.keys[i]
			acc |= k.bits1[k.region(in)]
		}
		set[0] = acc
		return
	}
	clear(set)
	for i := range m.keys {
		k := &m.keys[i]
		for _, wb := range k.bits[k.region(in)] {
			set[wb.w] |= wb.x
		}
	}
}

// LookupRule fills set with the atoms of rule i's keys only: enough for Rule(i) and
// cheaper than Lookup when one rule is checked alone.
func (m *Matcher) LookupRule(i int, in *Input, set []uint64) {
	clear(set)
	for _, ki := range m.rules[i].keys {
		k := &m.keys[ki]
		for _, wb := range k.bits[k.region(in)] {
			set[wb.w] |= wb.x
		}
	}
}

// region is the region of the key's value in in.
func (k *key) region(in *Input) int {
	switch k.class {
	case kPresent:
		return b2i(in.Present[k.kind])
	case kBool:
		return b2i(in.Bool[k.slot])
	case kString:
		s := in.Str[k.slot]
		for j, lit := range k.sthr {
			if s == lit {
				return j
			}
		}
		return len(k.sthr)
	case kInt:
		return region(k.ithr, termInt(in.Int[k.slot], k.fn))
	}
	return floatRegion(k.fthr, k.floatTerm(in))
}

// floatTerm is the value a kFloat key compares: its function of the field, in float64.
func (k *key) floatTerm(in *Input) float64 {
	if k.int {
		return float64(termInt(in.Int[k.slot], k.fn))
	}
	return termFloat(in.Num[k.slot], k.fn)
}

// Rule returns rule i's value given the atom set Lookup filled; ok is false when only the
// VM can give it (an opaque rule, or one reading a field of an absent fact).
func (m *Matcher) Rule(i int, in *Input, set []uint64) (v, ok bool) {
	r := &m.rules[i]
	if r.vm {
		return false, false
	}
	for _, k := range r.need {
		if !in.Present[k] {
			return false, false
		}
	}
	switch r.form {
	case fConst:
		return r.value, true
	case fAll:
		if len(r.mask) == 1 {
			return set[0]&r.mask[0] == r.mask[0], true
		}
		for w, x := range r.mask {
			if set[w]&x != x {
				return false, true
			}
		}
		return true, true
	case fAny:
		for w, x := range r.mask {
			if set[w]&x != 0 {
				return true, true
			}
		}
		return false, true
	}
	return evalTree(r.tree, len(r.tree)-1, set), true
}

// Outcomes of Decide.
const (
	False = 0
	True  = 1
	VM    = 2 // only expr's VM can give the rule's value or error
)

// Decide returns every rule's outcome on in, one per rule in the order given to
// Compile, and the leaf of the diagram that gave them (-1 when the matcher has no
// diagram): the same leaf is the same outcomes, so a caller may keep what it derives
// from them per leaf (see Leaves). The outcomes are read-only: they may be the
// matcher's own, or out (len(rules) long) filled through set (Words long), which are
// scratch space the caller keeps.
func (m *Matcher) Decide(in *Input, set []uint64, out []uint8) (outcomes []uint8, leaf int) {
	if m.diagram != nil {
		return m.diagram.walk(m, in)
	}
	return m.decideByKeys(in, set, out), -1
}

// Leaves is the number of leaves of the matcher's diagram, 0 when it has none.
func (m *Matcher) Leaves() int {
	if m.diagram == nil {
		return 0
	}
	return len(m.diagram.leaves)
}

// decideByKeys is Decide without a diagram: every key looked up, then every rule.
func (m *Matcher) decideByKeys(in *Input, set []uint64, out []uint8) []uint8 {
	m.Lookup(in, set)
	for i := range m.rules {
		r := &m.rules[i]
		if r.vm {
			out[i] = VM
			continue
		}
		o := uint8(False)
		if in.absent&r.needMask != 0 {
			o = VM
		} else if r.needBig {
			for _, k := range r.need {
				if !in.Present[k] {
					o = VM
					break
				}
			}
		}
		if o == False {
			v := true
			if r.form == fAll {
				for w, x := range r.mask {
					if set[w]&x != x {
						v = false
						break
					}
				}
			} else {
				v, _ = m.Rule(i, in, set)
			}
			if v {
				o = True
			}
		}
		out[i] = o
	}
	return out
}

// atomsOf lists the atoms of a rule's and, or or tree.
func (m *Matcher) atomsOf(r *rule) []int {
	var out []int
	if r.form == fTree {
		for _, n := range r.tree {
			if n.op == 0 && !slices.Contains(out, n.atom) {
				out = append(out, n.atom)
			}
		}
		return out
	}
	for w, x := range r.mask {
		for b := 0; b < 64; b++ {
			if x&(1<<b) != 0 {
				out = append(out, w*64+b)
			}
		}
	}
	return out
}

// holds reports whether the atom holds in region r of its key.
func (m *Matcher) holds(atom, r int) bool {
	for _, wb := range m.keys[m.atomKey[atom]].bits[r] {
		if wb.w == atom/64 {
			return wb.x&(1<<(atom%64)) != 0
		}
	}
	return false
}

// Analysable reports whether rule i is decided by the matcher whenever the facts it reads
// are present.
func (m *Matcher) Analysable(i int) bool { return !m.rules[i].vm }

func evalTree(t []tnode, n int, set []uint64) bool {
	x := &t[n]
	switch x.op {
	case 0:
		return set[x.atom/64]&(1<<(x.atom%64)) != 0
	case 3:
		return x.val
	case 1:
		for _, k := range x.kids {
			if !evalTree(t, k, set) {
				return false
			}
		}
		return true
	}
	for _, k := range x.kids {
		if evalTree(t, k, set) {
			return true
		}
	}
	return false
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// termInt applies fn to an int field as expr does: negation and abs wrap at the
// smallest int.
func termInt(x int64, fn string) int64 {
	for i := 0; i < len(fn); i++ {
		if fn[i] == '-' || x < 0 {
			x = -x
		}
	}
	return x
}

func termFloat(x float64, fn string) float64 {
	for i := 0; i < len(fn); i++ {
		if fn[i] == '-' || x < 0 {
			x = -x
		}
	}
	return x
}

// region is v's region among the sorted thresholds t: 2i below t[i] (and above those
// before it), 2i+1 equal to t[i], 2·len(t) above them all. A key has few thresholds as
// a rule: up to eight, a scan is cheaper than a binary search.
func region[T int64 | float64](t []T, v T) int {
	if len(t) > 8 {
		i, eq := slices.BinarySearch(t, v)
		return 2*i + b2i(eq)
	}
	r := 0
	for _, x := range t {
		switch {
		case v < x:
			return r
		case v == x:
			return r + 1
		}
		r += 2
	}
	return r
}

// floatRegion is region with the region after them all for NaN, which no threshold
// orders.
func floatRegion(t []float64, v float64) int {
	if v != v {
		return 2*len(t) + 1
	}
	return region(t, v)
}

// Witnesses lists values of a field of type t that reach every region the constants ks
// cut: each constant, its negation (for negated and abs terms), and the nearest values
// on either side. Values working memory refuses (NaN, ±Inf, ints beyond ±2^53) are left
// out. These are the cuts of the analysis's partition; package spine checks the matcher
// against expr's VM on them when a rule set loads.
func Witnesses(t Type, ks []Const) []Const {
	var out []Const
	seen := map[Const]bool{}
	add := func(c Const) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	addF := func(f float64) {
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
		case t == TFloat:
			add(Const{T: TFloat, F: f})
		case t == TInt:
			for _, g := range []float64{math.Floor(f) - 1, math.Floor(f), math.Ceil(f), math.Ceil(f) + 1} {
				if math.Abs(g) <= 1<<53 {
					add(Const{T: TInt, I: int64(g)})
				}
			}
		}
	}
	switch t {
	case TBool:
		return []Const{{T: TBool}, {T: TBool, B: true}}
	case TString:
		add(Const{T: TString})
		add(Const{T: TString, S: "\x00none of the literals"})
	case TFloat, TInt:
		addF(0)
	}
	for _, k := range ks {
		if k.T == TString {
			add(k)
			continue
		}
		if !isNum(k.T) {
			continue
		}
		f := k.float()
		if k.T == TInt && t == TInt && (k.I > 1<<53 || k.I < -(1<<53)) {
			continue // no field value reaches it: the ends of the range stand for it
		}
		for _, v := range []float64{f, -f} {
			addF(v)
			addF(math.Nextafter(v, math.Inf(-1)))
			addF(math.Nextafter(v, math.Inf(1)))
		}
	}
	if t == TInt {
		add(Const{T: TInt, I: 1 << 53})
		add(Const{T: TInt, I: -(1 << 53)})
	}
	return out
}
