package cond

import (
	"cmp"
	"slices"
)

// A decision diagram decides every rule of a matcher with one walk: each node looks up
// one key's region and goes to that region's child, and the leaf the walk reaches holds
// every rule's outcome. It is built when the rule set loads, by evaluating each rule's
// atoms on the regions looked up so far; TestMatcherMatchesDirect checks its leaves
// against the conditions evaluated directly.
//
// Keys are visited in a fixed order, the presence of the kinds first. A key that no
// undecided rule reads is skipped, and a walk ends as soon as every rule is decided:
// round 0 of a rule set about rounds is two lookups, not one per field. Sub-diagrams
// that decide the remaining rules the same way are built once and shared.
type diagram struct {
	root   int32     // a node, or ^leaf when no lookup is needed
	nodes  []dnode   // root first
	kids   []int32   // per node, a child per region of its key: a node, or ^leaf
	leaves [][]uint8 // per leaf, every rule's outcome (False, True or VM)
}

// dnode is a node: its key's lookup, copied from the key and kept small so that the
// common lookups read nothing else, and where its children are.
type dnode struct {
	class uint8 // the key's class, or kOther for a lookup through key.region
	int   bool  // kFloat: the field is an int
	fn    bool  // kFloat, kInt: the key applies a function to the field
	at    int32 // kPresent: the kind; kFloat, kInt, kBool: the slot
	kids  int32 // offset of its children in diagram.kids
	key   int32
	fthr  []float64
	ithr  []int64
}

// kOther marks a node looked up through its key: a string, a function of the field, or
// more thresholds than a scan is quick for.
const kOther = 255

// maxScan is the most thresholds a node scans; a key with more is searched.
const maxScan = 8

// Limits of a part's diagram, per rule of the part, beyond which the part is halved:
// the diagram of rules with independent thresholds grows with their product, and a
// failed attempt must cost little. Build steps are rule updates; the matcher's budget
// bounds them over all its diagrams, and rules beyond it are left to the VM.
const (
	nodesPerRule    = 64
	stepsPerRule    = 512
	maxMatcherSteps = 1 << 24
)

// walk returns every rule's outcome on in and the leaf that holds them. A threshold
// key's region is 2i below its threshold i (and above those before it), 2i+1 equal to
// it, 2n above them all and, for floats, 2n+1 for NaN.
func (d *diagram) walk(p *part, in *Input) ([]uint8, int) {
	c := d.root
	for c >= 0 {
		n := &d.nodes[c]
		r := 0
		switch n.class {
		case kFloat:
			v := in.Num[n.at]
			if n.fn {
				v = p.keys[n.key].floatTerm(in)
			} else if n.int {
				v = float64(in.Int[n.at])
			}
			r = 2*len(n.fthr) + 1 // NaN
			if v == v {
				r = scan(n.fthr, v)
			}
		case kInt:
			v := in.Int[n.at]
			if n.fn {
				v = termInt(v, p.keys[n.key].fn)
			}
			r = scan(n.ithr, v)
		case kPresent:
			r = b2i(in.Present[n.at])
		case kBool:
			r = b2i(in.Bool[n.at])
		default:
			r = p.keys[n.key].region(in)
		}
		c = d.kids[n.kids+int32(r)]
	}
	return d.leaves[^c], int(^c)
}

// ruleState is what a prefix of key lookups has decided about a rule.
type ruleState struct {
	vm       bool  // a kind it needs is absent
	val      int8  // -1 not known yet, 0 false, 1 true
	needLeft int16 // presence keys of needed kinds not looked up yet
}

func (s *ruleState) outcome() (uint8, bool) {
	switch {
	case s.vm:
		return VM, true
	case s.needLeft > 0 || s.val < 0:
		return 0, false
	case s.val == 1:
		return True, true
	}
	return False, true
}

// diagramBuilder builds a part's diagram depth first, with a level per key.
type diagramBuilder struct {
	p      *part
	order  []int   // keys in lookup order
	readBy [][]int // per key, the rules whose state it can change
	atoms  [][]int // per rule, its atoms
	region []int   // per key, the region being built, -1 when not looked up
	memo   map[string]int32
	leafIx map[string]int32
	d      *diagram
	steps  int
	budget *int // steps left over all the matcher's diagrams
	failed bool
	sig    []byte
}

// buildDiagram builds the diagram of a part, or returns nil when it would be too large.
func buildDiagram(p *part, budget *int) *diagram {
	b := &diagramBuilder{p: p, memo: map[string]int32{}, leafIx: map[string]int32{}, d: &diagram{}, budget: budget}
	b.region = make([]int, len(p.keys))
	for i := range b.region {
		b.region[i] = -1
	}
	b.readBy = make([][]int, len(p.keys))
	b.atoms = make([][]int, len(p.rules))
	start := make([]ruleState, len(p.rules))
	for j := range p.rules {
		r, s := &p.rules[j], &start[j]
		s.val = -1
		if r.vm {
			s.vm = true
			continue
		}
		for _, k := range r.need {
			s.needLeft++
			b.readBy[p.presence[k]] = append(b.readBy[p.presence[k]], j)
		}
		for _, k := range r.keys {
			if !slices.Contains(b.readBy[k], j) {
				b.readBy[k] = append(b.readBy[k], j)
			}
		}
		for _, n := range r.tree {
			if n.op == 0 && !slices.Contains(b.atoms[j], n.atom) {
				b.atoms[j] = append(b.atoms[j], n.atom)
			}
		}
		if v, ok := b.eval3(r.tree, len(r.tree)-1); ok { // a constant
			s.val = int8(b2i(v))
		}
	}
	// Presence first: an absent kind decides every rule that needs it. Then the keys
	// that most rules read, which decide the most rules soonest.
	for k := range p.keys {
		b.order = append(b.order, k)
	}
	slices.SortStableFunc(b.order, func(x, y int) int {
		px, py := p.keys[x].class == kPresent, p.keys[y].class == kPresent
		if px != py {
			if px {
				return -1
			}
			return 1
		}
		return cmp.Compare(len(b.readBy[y]), len(b.readBy[x]))
	})
	b.d.root = b.build(0, start)
	if b.failed {
		return nil
	}
	return b.d
}

// build returns the sub-diagram that decides the rules from level on, given their
// states after the lookups before it.
func (b *diagramBuilder) build(level int, states []ruleState) int32 {
	if b.failed {
		return 0
	}
	// Skip the keys no undecided rule reads.
	for ; level < len(b.order); level++ {
		if b.reads(b.order[level], states) {
			break
		}
	}
	if level == len(b.order) {
		return b.leaf(states) // every rule is decided
	}
	sig := b.signature(level, states)
	if c, ok := b.memo[sig]; ok {
		return c
	}
	k := b.order[level]
	n := b.p.keys[k].regions()
	kids := make([]int32, n)
	next := make([]ruleState, len(states))
	for r := range n {
		copy(next, states)
		b.region[k] = r
		for _, j := range b.readBy[k] {
			b.lookedUp(j, k, r, &next[j])
		}
		kids[r] = b.build(level+1, next)
		b.region[k] = -1
	}
	c := kids[0]
	if slices.ContainsFunc(kids, func(x int32) bool { return x != c }) {
		if len(b.d.nodes) >= nodesPerRule*len(b.p.rules) {
			b.failed = true
			return 0
		}
		c = int32(len(b.d.nodes))
		b.d.nodes = append(b.d.nodes, b.node(k))
		b.d.kids = append(b.d.kids, kids...)
	}
	b.memo[sig] = c
	return c
}

// node is a node looking key k up, its children to be appended next.
func (b *diagramBuilder) node(k int) dnode {
	key := &b.p.keys[k]
	n := dnode{class: kOther, kids: int32(len(b.d.kids)), key: int32(k)}
	switch {
	case key.class == kPresent:
		n.class, n.at = kPresent, int32(key.kind)
	case key.class == kBool:
		n.class, n.at = kBool, int32(key.slot)
	case len(key.fthr) > maxScan || len(key.ithr) > maxScan:
	case key.class == kFloat:
		n.class, n.int, n.fn, n.at, n.fthr = kFloat, key.int, key.fn != "", int32(key.slot), key.fthr
	case key.class == kInt:
		n.class, n.fn, n.at, n.ithr = kInt, key.fn != "", int32(key.slot), key.ithr
	}
	return n
}

// reads reports whether looking key k up can change an undecided rule's state.
func (b *diagramBuilder) reads(k int, states []ruleState) bool {
	for _, j := range b.readBy[k] {
		if _, ok := states[j].outcome(); !ok {
			return true
		}
	}
	return false
}

// lookedUp updates the state of rule j once key k is known to be in region r.
func (b *diagramBuilder) lookedUp(j, k, r int, s *ruleState) {
	if _, ok := s.outcome(); ok {
		return
	}
	b.steps++
	if *b.budget--; b.steps > stepsPerRule*len(b.p.rules) || *b.budget < 0 {
		b.failed = true
		return
	}
	rule := &b.p.rules[j]
	if key := &b.p.keys[k]; key.class == kPresent && slices.Contains(rule.need, key.kind) {
		s.needLeft--
		if r == 0 {
			s.vm = true
			return
		}
	}
	if s.val < 0 {
		if v, ok := b.eval3(rule.tree, len(rule.tree)-1); ok {
			s.val = int8(b2i(v))
		}
	}
}

// eval3 evaluates node n of a tree on the keys looked up so far: ok is false when the
// value depends on one not looked up yet.
func (b *diagramBuilder) eval3(t []tnode, n int) (v, ok bool) {
	x := &t[n]
	switch x.op {
	case 0:
		a := &b.p.atoms[x.atom]
		if r := b.region[a.key]; r >= 0 {
			return a.holds[r], true
		}
		return false, false
	case 3:
		return x.val, true
	}
	isAnd := x.op == 1
	known := true
	for _, kid := range x.kids {
		v, ok := b.eval3(t, kid)
		if !ok {
			known = false
		} else if v != isAnd {
			return v, true // a false in an and, a true in an or
		}
	}
	return isAnd, known
}

// signature names the states at a level: two prefixes with the same signature leave the
// same rules to decide in the same way, so they share a sub-diagram. An undecided rule
// is named by the truth of each of its atoms looked up so far.
func (b *diagramBuilder) signature(level int, states []ruleState) string {
	sig := append(b.sig[:0], byte(level), byte(level>>8), byte(level>>16))
	for j := range states {
		s := &states[j]
		if o, ok := s.outcome(); ok {
			sig = append(sig, o)
			continue
		}
		sig = append(sig, 3)
		if s.val >= 0 { // known, waiting for presence
			sig = append(sig, 4+byte(s.val))
		}
		for _, a := range b.atoms[j] {
			d := &b.p.atoms[a]
			if r := b.region[d.key]; r >= 0 {
				sig = append(sig, 6+byte(b2i(d.holds[r])))
			}
		}
	}
	b.sig = sig
	return string(sig)
}

// leaf returns the leaf of the decided states, shared with any other that decides alike.
func (b *diagramBuilder) leaf(states []ruleState) int32 {
	out := make([]uint8, len(states))
	for j := range states {
		out[j], _ = states[j].outcome()
	}
	if ix, ok := b.leafIx[string(out)]; ok {
		return ^ix
	}
	ix := int32(len(b.d.leaves))
	b.leafIx[string(out)] = ix
	b.d.leaves = append(b.d.leaves, out)
	return ^ix
}
