package cond

import "slices"

// A Matcher decides every analysable condition of a rule set by looking up tables built
// from the conditions' keys (see key and table): the leaf a lookup finds holds the
// outcome of each rule of its part. Rules are cut into parts of at most partRules, in
// order, so that a table's leaves stay small and its keys' regions are those of its own
// rules' constants; a rule set of a few dozen rules is one part, decided by one lookup.
// A part never mixes rules of two gates (gate.go): a cycle looks up only the parts whose
// gate is present, and the parts' leaves are numbered together.
//
// The outcome is exact only when no atom can fail: a rule that reads a field of a kind
// whose fact is absent, and an opaque rule, is left to expr's VM (its outcome is VM),
// which gives its result or its error as it always has. So is a rule too large for any
// table; rules whose table together would be too large get one each half.
type Matcher struct {
	slots      []Slot
	parts      []*part
	vmOnly     []int  // the rules no part decides
	analysable []bool // by rule: a part decides it whenever its facts are present
	partOf     []int  // by rule: its part, -1 for none
	top        *table // the table Decide looks up: its single part's, or one that decides each part
	// combined holds, by combination of the parts' leaves (see combine), every rule's
	// outcome; nil for a matcher of one part or of too many combinations.
	combined [][]uint8
	// restGates are the gates of the parts after the first when every one is gated,
	// nil otherwise; while all are absent, the combined leaf is the first part's digit
	// times restScale, the product of their radixes.
	restGates []int
	restScale int
}

// part is some rules' conditions compiled, and their table.
type part struct {
	index    []int // each rule's index in the matcher: consecutive
	rules    []rule
	keys     []key
	atoms    []atomDef
	presence map[int]int // kind → its presence key
	t        *table
	gate     int     // the kind whose presence opens every rule of the part, or -1 (see gateOf)
	shut     []uint8 // for a gated part, its outcomes while the gate is absent
	radix    int     // the part's digit in a combined leaf: its leaves, and one for its gate absent
}

// partRules is the most rules a part holds.
const partRules = 16

// Slot is one fact field the matcher reads; Input holds its value at the slot's index.
type Slot struct {
	Kind, Field int
	Type        Type
}

// Input is the state of working memory the matcher reads: each kind's presence (by kind
// index) and each slot's value in the array of its type.
type Input struct {
	Present []bool
	Num     []float64
	Int     []int64
	Bool    []bool
	Str     []string
}

// Outcomes of Decide.
const (
	False = 0
	True  = 1
	VM    = 2 // only expr's VM can give the rule's value or error
)

// Compile builds the matcher of a rule set's conditions, one per rule in the order given;
// nil stands for a rule that only the VM evaluates.
func Compile(conds []*Node) *Matcher {
	m := &Matcher{}
	slotIx := map[[2]int]int{}
	budget := maxMatcherSteps
	gates := make([]int, len(conds))
	for i, c := range conds {
		gates[i] = gateOf(c)
	}
	// A part too large is tried again in halves, and the work of the failed attempt is
	// lost. Neighbouring rules tend to be alike, so after halving the next part starts
	// at the size that worked, and grows back after a run of parts that fit at once.
	size, fits := partRules, 0
	for lo := 0; lo < len(conds); {
		index := make([]int, gateRun(gates, lo, size))
		for j := range index {
			index[j] = lo + j
		}
		lo += len(index)
		parts := m.split(conds, index, slotIx, &budget)
		for _, p := range parts {
			if p.gate = gates[p.index[0]]; p.gate >= 0 {
				p.shut = p.shutOutcomes()
			}
		}
		m.parts = append(m.parts, parts...)
		if fits++; len(parts) > 1 {
			size, fits = len(parts[0].index), 0
		} else if fits == 4 {
			size, fits = min(partRules, 2*size), 0
		}
	}
	m.analysable, m.partOf = make([]bool, len(conds)), slices.Repeat([]int{-1}, len(conds))
	for n, p := range m.parts {
		for j, i := range p.index {
			m.partOf[i], m.analysable[i] = n, !p.rules[j].vm
		}
	}
	for i, n := range m.partOf {
		if n < 0 {
			m.vmOnly = append(m.vmOnly, i)
		}
	}
	m.top = &table{parts: m}
	single := len(m.parts) == 1 && len(m.parts[0].index) == len(conds)
	for _, p := range m.parts {
		if p.gate >= 0 && !single {
			p.foldGate()
		}
	}
	if single {
		// One table decides every rule: nothing to skip, and its own outcomes stand
		// when the gate is absent.
		m.parts[0].gate, m.parts[0].shut = -1, nil
		m.top = m.parts[0].t
	} else if len(m.vmOnly) < len(conds) {
		if m.combine(len(conds)); m.combined != nil {
			top := *m.parts[0].t
			top.rest, top.restGate, m.top = m, m.parts[0].gate, &top
		}
	}
	return m
}

// split compiles the rules index into a part or, when its table would be too large,
// into the parts of each half; a rule too large alone is left to the VM.
func (m *Matcher) split(conds []*Node, index []int, slotIx map[[2]int]int, budget *int) []*part {
	p := m.compilePart(conds, index, slotIx)
	if p.t = buildTable(p, budget); p.t != nil {
		return []*part{p}
	}
	if len(index) == 1 {
		return nil
	}
	half := len(index) / 2
	return append(m.split(conds, index[:half], slotIx, budget), m.split(conds, index[half:], slotIx, budget)...)
}

// Slots lists the fields the matcher reads, in slot order.
func (m *Matcher) Slots() []Slot { return m.slots }

// NewInput returns an Input sized for the matcher and nkinds kinds, every kind absent.
func (m *Matcher) NewInput(nkinds int) Input {
	n := len(m.slots)
	return Input{Present: make([]bool, nkinds), Num: make([]float64, n), Int: make([]int64, n), Bool: make([]bool, n), Str: make([]string, n)}
}

// SetPresent records whether kind k's fact exists.
func (in *Input) SetPresent(k int, has bool) { in.Present[k] = has }

// Decide returns every rule's outcome on in, one per rule in the order given to
// Compile, and the leaf that gave them: the same leaf is the same outcomes, so a caller
// may keep what it derives from them per leaf (see Leaves). The outcomes are read-only:
// they are the matcher's own or out (as long as the rules), which the caller keeps as
// scratch space. When the matcher has several parts, leaf is -1.
func (m *Matcher) Decide(in *Input, out []uint8) (outcomes []uint8, leaf int) {
	return m.top.lookup(in, out) // one call, so that Decide is inlined
}

// decideParts is Decide for several parts whose leaves are not combined.
func (m *Matcher) decideParts(in *Input, out []uint8) ([]uint8, int) {
	for _, i := range m.vmOnly {
		out[i] = VM
	}
	for _, p := range m.parts { // a part's rules are consecutive
		if p.gate >= 0 && !in.Present[p.gate] {
			copy(out[p.index[0]:], p.shut)
			continue
		}
		o, _ := p.t.lookup(in, nil)
		copy(out[p.index[0]:], o)
	}
	return out, -1
}

// restShut reports whether every part after the first is gated and every gate absent:
// then their digits are 0, and no lookup is needed.
func (m *Matcher) restShut(in *Input) bool {
	if m.restGates == nil {
		return false
	}
	for _, g := range m.restGates {
		if in.Present[g] {
			return false
		}
	}
	return true
}

// decideRest is the combined leaf and its outcomes, given the first part's digit.
func (m *Matcher) decideRest(in *Input, combined int) ([]uint8, int) {
	if m.restShut(in) {
		combined *= m.restScale
		return m.combined[combined], combined
	}
	for _, p := range m.parts[1:] {
		d := 0
		if p.gate < 0 || in.Present[p.gate] {
			_, d = p.t.lookup(in, nil)
			d += b2i(p.gate >= 0)
		}
		combined = combined*p.radix + d
	}
	return m.combined[combined], combined
}

// Outcome is rule i's outcome on in, from its part's table only.
func (m *Matcher) Outcome(i int, in *Input) uint8 {
	if m.partOf[i] < 0 {
		return VM
	}
	p := m.parts[m.partOf[i]]
	if p.gate >= 0 && !in.Present[p.gate] {
		return p.shut[i-p.index[0]]
	}
	o, _ := p.t.lookup(in, nil)
	return o[i-p.index[0]]
}

// Leaves is the number of leaves Decide may report.
func (m *Matcher) Leaves() int {
	if m.combined != nil {
		return len(m.combined)
	}
	return len(m.top.leaves)
}

// Parts is the number of tables the matcher looks up, at most, to decide every rule.
func (m *Matcher) Parts() int { return len(m.parts) }

// PartOf is the part that decides rule i, -1 for none; rules of one part are decided by
// one lookup in one table.
func (m *Matcher) PartOf(i int) int { return m.partOf[i] }

// Analysable reports whether rule i is decided by the matcher whenever the facts it reads
// are present.
func (m *Matcher) Analysable(i int) bool { return m.analysable[i] }
