package cond

// A Matcher decides every analysable condition of a rule set with one walk of a decision
// diagram built from the conditions' keys (see key and diagram): the leaf the walk
// reaches holds every rule's outcome.
//
// The outcome is exact only when no atom can fail: a rule that reads a field of a kind
// whose fact is absent, and an opaque rule, is left to expr's VM (its outcome is VM),
// which gives its result or its error as it always has. So is a rule too large for any
// diagram; rules whose diagram together would be too large get one each part.
type Matcher struct {
	slots  []Slot
	keys   []key
	rules  []rule
	atoms  []atomDef
	parts  []part
	vmOnly []int // the rules no part decides
}

// part is a diagram and the rules its leaves decide, by index; all of them, in order,
// when it is the matcher's only part.
type part struct {
	d     *diagram
	rules []int
}

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
	b := &builder{m: &Matcher{}, slotIx: map[[2]int]int{}, keyIx: map[keyID]int{}, atomIx: map[atomID]int{}}
	for _, c := range conds {
		b.m.rules = append(b.m.rules, b.rule(c))
	}
	// Every kind a rule needs has a presence key, which a diagram looks up first.
	presence := map[int]int{}
	for _, r := range b.m.rules {
		for _, k := range r.need {
			presence[k] = b.key(keyID{class: kPresent, kind: k}, false)
		}
	}
	b.tables()
	m := b.m
	all := make([]int, len(m.rules))
	for i := range all {
		all[i] = i
	}
	budget := maxMatcherSteps
	m.parts = m.split(all, presence, &budget)
	if len(m.parts) == 1 && len(m.parts[0].rules) == len(m.rules) {
		m.parts[0].rules = nil // the leaves are every rule's outcomes, in order
	}
	for i := range m.rules {
		if m.rules[i].vm {
			m.vmOnly = append(m.vmOnly, i)
		}
	}
	return m
}

// split builds one diagram for rules or, when that one would be too large, diagrams for
// each half; a rule too large alone is left to the VM.
func (m *Matcher) split(rules []int, presence map[int]int, budget *int) []part {
	if d := buildDiagram(m, rules, presence, budget); d != nil {
		return []part{{d: d, rules: rules}}
	}
	if len(rules) == 1 {
		m.rules[rules[0]].vm = true
		return nil
	}
	half := len(rules) / 2
	return append(m.split(rules[:half], presence, budget), m.split(rules[half:], presence, budget)...)
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
// scratch space. When the matcher has several diagrams, leaf is -1.
func (m *Matcher) Decide(in *Input, out []uint8) (outcomes []uint8, leaf int) {
	if len(m.parts) == 1 && m.parts[0].rules == nil {
		return m.parts[0].d.walk(m, in)
	}
	for _, i := range m.vmOnly {
		out[i] = VM
	}
	for _, p := range m.parts {
		o, _ := p.d.walk(m, in)
		for j, i := range p.rules {
			out[i] = o[j]
		}
	}
	return out, -1
}

// Leaves is the number of leaves Decide may report.
func (m *Matcher) Leaves() int {
	if len(m.parts) == 1 && m.parts[0].rules == nil {
		return len(m.parts[0].d.leaves)
	}
	return 0
}

// Analysable reports whether rule i is decided by the matcher whenever the facts it reads
// are present.
func (m *Matcher) Analysable(i int) bool { return !m.rules[i].vm }
