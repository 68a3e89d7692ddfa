package cond

import (
	"math"
	"slices"
)

// rule is one condition, compiled.
type rule struct {
	vm   bool    // only the VM evaluates it: opaque, or too large for a table
	need []int   // kinds whose fields it reads: all must be present
	keys []int   // the keys its atoms read
	tree []tnode // the condition in negation normal form, root last
}

// tnode is a node of a condition in negation normal form: a literal (an atom, negations
// being atoms of their own) or an and/or of earlier nodes.
type tnode struct {
	op   uint8 // 0 atom, 1 and, 2 or, 3 const
	atom int
	val  bool
	kids []int
}

// atomDef is a registered atom: the key it reads and its truth in each of the key's
// regions.
type atomDef struct {
	key   int
	a     Atom
	neg   bool
	holds []bool
}

// builder compiles the conditions of one part: keys and atoms are the part's own,
// slots the matcher's.
type builder struct {
	m      *Matcher
	p      *part
	slotIx map[[2]int]int // shared by the matcher's parts
	keyIx  map[keyID]int
	atomIx map[atomID]int
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

// compilePart compiles the conditions of the rules index (nil for a rule only the VM
// evaluates) into a part, without its table.
func (m *Matcher) compilePart(conds []*Node, index []int, slotIx map[[2]int]int) *part {
	p := &part{index: index, presence: map[int]int{}}
	b := &builder{m: m, p: p, slotIx: slotIx, keyIx: map[keyID]int{}, atomIx: map[atomID]int{}}
	for _, i := range index {
		p.rules = append(p.rules, b.rule(conds[i]))
	}
	// Every kind a rule needs has a presence key, which a table's build looks up first.
	for _, r := range p.rules {
		for _, k := range r.need {
			p.presence[k] = b.key(keyID{class: kPresent, kind: k}, false)
		}
	}
	b.tables()
	return p
}

func (b *builder) rule(c *Node) rule {
	if c == nil {
		return rule{vm: true}
	}
	var r rule
	opaque := false
	c.Walk(func(n *Node) {
		opaque = opaque || n.Op == OpOpaque
		if n.Op == OpAtom && n.Atom.ReadsField() && !slices.Contains(r.need, n.Atom.Kind) {
			r.need = append(r.need, n.Atom.Kind)
		}
	})
	if opaque {
		return rule{vm: true}
	}
	slices.Sort(r.need)
	// With every kind it reads present no atom can fail, so the order in which expr
	// would evaluate them cannot change the result, and negations move to the atoms.
	root := b.nnf(&r, c, false)
	r.tree = r.tree[:root+1]
	return r
}

// nnf appends n, negated when neg, to r's tree in negation normal form with constants
// folded, and returns its index. And and or nodes are flattened.
func (b *builder) nnf(r *rule, n *Node, neg bool) int {
	add := func(t tnode) int { r.tree = append(r.tree, t); return len(r.tree) - 1 }
	switch n.Op {
	case OpConst:
		return add(tnode{op: 3, val: n.Value != neg})
	case OpAtom:
		return add(tnode{op: 0, atom: b.atom(r, n.Atom, neg)})
	case OpNot:
		return b.nnf(r, n.L, !neg)
	}
	isAnd := (n.Op == OpAnd) != neg
	op := uint8(2)
	if isAnd {
		op = 1
	}
	var kids []int
	for _, side := range []*Node{n.L, n.R} {
		k := b.nnf(r, side, neg)
		t := r.tree[k]
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

// atom registers the atom (negated when neg), read by r, and returns its id.
func (b *builder) atom(r *rule, a Atom, neg bool) int {
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
		key := &b.p.keys[k]
		if id.class == kInt {
			key.ithr = append(key.ithr, a.K.I)
		} else if f := a.K.float(); !math.IsNaN(f) {
			key.fthr = append(key.fthr, f)
		}
	}
	if a.Test == TestString && !slices.Contains(b.p.keys[k].sthr, a.K.S) {
		b.p.keys[k].sthr = append(b.p.keys[k].sthr, a.K.S)
	}
	if !slices.Contains(r.keys, k) {
		r.keys = append(r.keys, k)
	}
	aid := atomID{key: k, a: a, neg: neg, fnan: a.K.T == TFloat && math.IsNaN(a.K.F)}
	if aid.fnan {
		aid.a.K.F = 0
	}
	if i, ok := b.atomIx[aid]; ok {
		return i
	}
	b.atomIx[aid] = len(b.p.atoms)
	b.p.atoms = append(b.p.atoms, atomDef{key: k, a: a, neg: neg})
	return len(b.p.atoms) - 1
}

// key returns the index of the key id, registering it when it is new; isInt is key.int.
func (b *builder) key(id keyID, isInt bool) int {
	k, ok := b.keyIx[id]
	if !ok {
		k = len(b.p.keys)
		b.keyIx[id] = k
		b.p.keys = append(b.p.keys, key{class: id.class, kind: id.kind, slot: id.slot, fn: id.fn, int: isInt})
	}
	return k
}

// tables sorts each key's thresholds and finds each atom's truth in each region.
func (b *builder) tables() {
	p := b.p
	for i := range p.keys {
		k := &p.keys[i]
		slices.Sort(k.ithr)
		k.ithr = slices.Compact(k.ithr)
		slices.Sort(k.fthr)
		k.fthr = slices.Compact(k.fthr) // NaN is never a threshold, so == dedupes
	}
	for i := range p.atoms {
		d := &p.atoms[i]
		k := &p.keys[d.key]
		d.holds = make([]bool, k.regions())
		for r := range d.holds {
			d.holds[r] = k.holds(r, &d.a) != d.neg
		}
	}
}
