package cond

import (
	"cmp"
	"math"
	"slices"
)

// A part's table decides every rule of the part with one lookup. Two regions of a key
// are one class when every atom on the key has the same truth in both (and, for a
// presence key, the kind is present in both or in neither); the table holds the leaf,
// every rule's outcome, of each combination of classes, at the sum over the keys of the
// class times the key's stride (key.off by region). It is built when the rule set loads
// by evaluating the rules' atoms on the classes looked up so far, a key per level, the
// presence of the kinds first; prefixes that leave the undecided rules to be decided
// alike share the cells after them. TestMatcherMatchesDirect checks it against the
// conditions evaluated directly.
type table struct {
	cells  []int32   // by combination of classes, its leaf
	leaves [][]uint8 // per leaf, every rule's outcome (False, True or VM)
	base   int32
	// The tests of the keys read through thresholds, by the array they read; other
	// holds the keys looked up through key.region.
	present, bools, ints []itest
	floats               []test[float64]
	nans                 []test[float64] // keys whose NaN is not their lowest region's class
	other                []key
	parts                *Matcher // for a matcher of several parts, its top table: lookup decides each
	// rest is set on the top table of a matcher whose parts' leaves are combined: a copy
	// of its first part's table, after which lookup decides the other parts.
	rest     *Matcher
	restGate int // with rest: the first part's gate, -1 for none
}

// Limits of a part's table beyond which the part is halved, and of the work of building
// it: cells per rule, with four rules' worth more so that a rule of many keys fits
// alone; build steps are rule updates, and the matcher's budget bounds them over all its
// tables; rules beyond it are left to the VM.
const (
	cellsPerRule    = 1 << 10
	stepsPerRule    = 512
	maxMatcherSteps = 1 << 24
)

// lookup returns every rule's outcome on in and the leaf that holds them: the cell is the
// table's base plus the weight of every test that holds, and what a key of other adds.
func (t *table) lookup(in *Input, out []uint8) ([]uint8, int) {
	if t.parts != nil {
		return t.parts.decideParts(in, out)
	}
	// The top table of gated parts (gate.go) is the first part's: it is read as a
	// single table is, and the other parts only for the gates that are present.
	if r := t.rest; r != nil && t.restGate >= 0 && !in.Present[t.restGate] {
		return r.decideRest(in, 0)
	}
	// The tests add their weights without a branch: which hold varies from one lookup
	// to the next, and a mispredicted branch costs more than the add.
	// The loops read the value arrays through locals: each test is then a load, a
	// compare and an add. Each loop takes its tests the way that measured fewer
	// instructions: the ints copied out, the others indexed.
	ix, present, flags, ints, num := t.base, in.Present, in.Bool, in.Int, in.Num
	for i, ts := 0, t.present; i < len(ts); i++ {
		ix += ts[i].w & -int32(b2i(present[ts[i].at]))
	}
	for i, ts := 0, t.bools; i < len(ts); i++ {
		ix += ts[i].w & -int32(b2i(flags[ts[i].at]))
	}
	for _, x := range t.ints {
		ix += x.w & -int32(b2i(ints[x.at] >= x.c))
	}
	sum := 0.0 // NaN when a value is: NaN holds no test
	for i, ts := 0, t.floats; i < len(ts); i++ {
		x := &ts[i]
		v := math.Float64frombits(math.Float64bits(num[x.at]) & x.and)
		sum += v
		ix += x.w & -int32(b2i(v >= x.c))
	}
	if sum != sum {
		for _, x := range t.nans {
			if v := num[x.at]; v != v {
				ix += x.w
			}
		}
	}
	for i := range t.other {
		ix += t.other[i].off[t.other[i].region(in)]
	}
	leaf := t.cells[ix]
	if r := t.rest; r != nil {
		d := int(leaf) + b2i(t.restGate >= 0)
		if r.restShut(in) { // decideRest's first case, without the call
			d *= r.restScale
			return r.combined[d], d
		}
		return r.decideRest(in, d)
	}
	return t.leaves[leaf], int(leaf)
}

// A test adds w to the cell when a value is true, or at least c. A key read through
// thresholds is a staircase of tests: region m is where the tests of steps 1..m hold,
// step 2i+1 being "at least threshold i" and 2i+2 "above it" (at least the next int or
// float), so that key.off[m] is off[0] plus the weights off[j] - off[j-1] up to m. NaN
// holds none and is looked for only when the sum of the float values is NaN. A float
// test reads its value through and, which clears the sign for abs.
type test[T int64 | float64] struct {
	at, w int32 // the kind or the slot, and the weight
	c     T
	and   uint64
}

// itest is a test of a presence, a bool or an int: half the size of a test, so that
// the lookup's loops read less.
type itest struct {
	at, w int32
	c     int64
}

func itests(ts []test[int64]) []itest {
	out := make([]itest, len(ts))
	for i, x := range ts {
		out[i] = itest{at: x.at, w: x.w, c: x.c}
	}
	return out
}

// add adds key k's lookup to t: tests, or k itself when it is not read through
// thresholds (a string, a function of an int, a negation) or has too many.
func (t *table) add(k *key) {
	and := uint64(math.MaxUint64)
	if k.fn == "a" {
		and = math.MaxInt64 // abs clears the sign
	}
	n := len(k.off) - 1 - b2i(k.class == kFloat) // the last region of the staircase; NaN's follows
	var ints []test[int64]
	var floats []test[float64]
	asInt := k.class != kFloat || k.int // an int is at least float c when it is at least ceil(c)
	for m := 1; m <= n; m++ {
		i, above := (m-1)/2, m%2 == 0
		if k.class == kInt && above && m < n && k.ithr[i]+1 == k.ithr[i+1] {
			k.off[m] = k.off[m-1] // no int lies between them: a region no lookup reaches
		}
		x := test[int64]{at: int32(k.slot), w: k.off[m] - k.off[m-1]}
		f := test[float64]{at: x.at, w: x.w, and: and}
		none := false // nothing is above the greatest value
		switch k.class {
		case kPresent:
			x.at = int32(k.kind)
		case kInt:
			x.c, none = k.ithr[i]+int64(b2i(above)), above && k.ithr[i] == math.MaxInt64
		case kFloat:
			if f.c, none = k.fthr[i], above && math.IsInf(k.fthr[i], 1); above {
				f.c = math.Nextafter(f.c, math.Inf(1))
			}
			x.c, asInt = int64(math.Ceil(f.c)), asInt && math.Abs(f.c) <= 1<<53
		}
		if x.w != 0 && !none {
			ints, floats = append(ints, x), append(floats, f)
		}
	}
	nan := test[float64]{at: int32(k.slot), w: k.off[len(k.off)-1] - k.off[0]}
	if k.class == kFloat && nan.w != 0 && len(floats) == 0 { // its value must reach the sum
		floats = append(floats, test[float64]{at: int32(k.slot), c: math.Inf(1), and: and})
	}
	switch {
	case k.class == kString || k.fn != "" && (k.fn != "a" || asInt) || k.int && !asInt || len(floats) > maxScan:
		t.other = append(t.other, *k)
		return
	case k.class == kPresent:
		t.present = append(t.present, itests(ints)...)
	case k.class == kBool:
		t.bools = append(t.bools, itests(ints)...)
	case asInt:
		t.ints = append(t.ints, itests(ints)...)
	default:
		t.floats = append(t.floats, floats...)
		if nan.w != 0 {
			t.nans = append(t.nans, nan)
		}
	}
	t.base += k.off[0]
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

// tableBuilder builds a part's table depth first, with a level per key.
type tableBuilder struct {
	p      *part
	order  []int   // the keys, a level each
	reps   [][]int // per key, a region of each of its classes
	stride []int32 // per level, the combinations of the keys after it
	readBy [][]int // per key, the rules whose state it can change
	atoms  [][]int // per rule, its atoms
	region []int   // per key, the region being built, -1 when not looked up
	memo   map[string]int32
	leafIx map[string]int32
	t      *table
	steps  int
	budget *int // steps left over all the matcher's tables
	failed bool
	sig    []byte
}

// buildTable builds the table of a part, or returns nil when it would be too large.
func buildTable(p *part, budget *int) *table {
	b := &tableBuilder{p: p, memo: map[string]int32{}, leafIx: map[string]int32{}, t: &table{}, budget: budget}
	if !b.classes() {
		return nil
	}
	b.region = slices.Repeat([]int{-1}, len(p.keys))
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
	slices.SortStableFunc(b.order, func(x, y int) int {
		px, py := b2i(p.keys[x].class != kPresent), b2i(p.keys[y].class != kPresent)
		return cmp.Or(cmp.Compare(px, py), cmp.Compare(len(b.readBy[y]), len(b.readBy[x])))
	})
	b.stride = make([]int32, len(b.order))
	for l, n := len(b.order)-1, int32(1); l >= 0; l-- {
		b.stride[l] = n
		for r, c := range p.keys[b.order[l]].off {
			p.keys[b.order[l]].off[r] = c * n
		}
		n *= int32(len(b.reps[b.order[l]]))
	}
	if b.build(0, start, 0); b.failed {
		return nil
	}
	for k := range p.keys {
		b.t.add(&p.keys[k])
	}
	return b.t
}

// classes finds each key's classes, sets key.off to each region's class and makes the
// cells, one per combination of classes; it reports false when they would be too many.
func (b *tableBuilder) classes() bool {
	b.reps = make([][]int, len(b.p.keys))
	size := 1
	for k := range b.p.keys {
		key := &b.p.keys[k]
		key.off, b.order = make([]int32, key.regions()), append(b.order, k)
		classes := map[string]int32{}
		for r := range key.off {
			sig := []byte{byte(r * b2i(key.class == kPresent))} // an absent kind decides its rules
			for _, a := range b.p.atoms {
				if a.key == k {
					sig = append(sig, byte(b2i(a.holds[r])))
				}
			}
			c, ok := classes[string(sig)]
			if !ok {
				c = int32(len(b.reps[k]))
				classes[string(sig)], b.reps[k] = c, append(b.reps[k], r)
			}
			key.off[r] = c
		}
		if size *= len(b.reps[k]); size > cellsPerRule*(len(b.p.rules)+4) {
			return false
		}
	}
	b.t.cells = make([]int32, size)
	return true
}

// build fills the cells from level on, from cell ix, given the rules' states after the
// lookups before it.
func (b *tableBuilder) build(level int, states []ruleState, ix int32) {
	if b.failed {
		return
	}
	if level == len(b.order) {
		b.t.cells[ix] = b.leaf(states)
		return
	}
	k := b.order[level]
	n := b.stride[level] * int32(len(b.reps[k])) // the cells from level on
	sig := b.signature(level, states)
	if from, ok := b.memo[sig]; ok {
		copy(b.t.cells[ix:ix+n], b.t.cells[from:])
		return
	}
	b.memo[sig] = ix
	next := make([]ruleState, len(states))
	for c, r := range b.reps[k] {
		copy(next, states)
		b.region[k] = r
		for _, j := range b.readBy[k] {
			b.lookedUp(j, k, r, &next[j])
		}
		b.build(level+1, next, ix+int32(c)*b.stride[level])
	}
	b.region[k] = -1
}

// lookedUp updates the state of rule j once key k is known to be in region r.
func (b *tableBuilder) lookedUp(j, k, r int, s *ruleState) {
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
func (b *tableBuilder) eval3(t []tnode, n int) (v, ok bool) {
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
// same rules to decide in the same way, so they share their cells. An undecided rule
// is named by the truth of each of its atoms looked up so far.
func (b *tableBuilder) signature(level int, states []ruleState) string {
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
func (b *tableBuilder) leaf(states []ruleState) int32 {
	out := make([]uint8, len(states))
	for j := range states {
		out[j], _ = states[j].outcome()
	}
	ix, ok := b.leafIx[string(out)]
	if !ok {
		ix = int32(len(b.t.leaves))
		b.leafIx[string(out)], b.t.leaves = ix, append(b.t.leaves, out)
	}
	return ix
}
