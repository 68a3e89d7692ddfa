package cond

// Gates. Most rules of a rule set open with the presence of the fact they are about
// (`signals != nil && …`); a rule set that rules on two things at two moments — the
// macro-state on the round's signals, a ruling on a memory pair that only OBSERVE puts —
// opens its rules with two kinds. Such rules are cut into parts by their gate, the kind
// whose presence is their first conjunct: a part whose gate is absent decides each of its
// rules false without a lookup (expr would stop at that conjunct too), so a decision
// costs one lookup per gate that is present, and a table never spans keys that are
// never read together.
//
// The leaves of the parts are numbered together, digit by digit (a gated part's digit is
// 0 while its gate is absent), and each combination's outcomes are built when the rule
// set loads, as long as they are few: a cycle then reaches a leaf like a cycle of one
// table does, and the engine keeps its evaluation per leaf. The top table is a copy of
// the first part's, looked up as a single table is; the other parts follow in one call
// (decideRest), which reads only a presence bit for a part whose gate is absent. A
// matcher of one part has nothing to skip and is that part's table, gate or not.

// maxCombinedLeaves bounds the combinations of the parts' leaves a matcher numbers, and
// maxCombinedBytes the outcomes it keeps for them; beyond either, Decide reports no leaf.
const (
	maxCombinedLeaves = 1 << 12
	maxCombinedBytes  = 1 << 18
)

// gateOf is the singleton kind whose presence is c's first conjunct, or -1: when that
// kind is absent, c is false and expr reads nothing after it.
func gateOf(c *Node) int {
	for c != nil {
		switch c.Op {
		case OpAnd:
			c = c.L
		case OpAtom:
			if c.Atom.Test == TestPresent && c.Atom.Want {
				return c.Atom.Kind
			}
			return -1
		case OpNot:
			if a := c.L; a != nil && a.Op == OpAtom && a.Atom.Test == TestPresent && !a.Atom.Want {
				return a.Atom.Kind
			}
			return -1
		default:
			return -1
		}
	}
	return -1
}

// gateRun is how many of conds, from lo and at most n, share the gate of conds[lo].
func gateRun(gates []int, lo, n int) int {
	j := lo + 1
	for j < len(gates) && j < lo+n && gates[j] == gates[lo] {
		j++
	}
	return j - lo
}

// combine numbers the combinations of the parts' leaves and builds their outcomes, when
// they are few enough; m.combined stays nil otherwise.
func (m *Matcher) combine(n int) {
	total := 1
	for _, p := range m.parts {
		p.radix = len(p.t.leaves) + b2i(p.gate >= 0)
		if total *= p.radix; total > maxCombinedLeaves || total*n > maxCombinedBytes {
			return
		}
	}
	m.restGates, m.restScale = []int{}, 1
	for _, p := range m.parts[1:] {
		if p.gate < 0 {
			m.restGates = nil
			break
		}
		m.restGates, m.restScale = append(m.restGates, p.gate), m.restScale*p.radix
	}
	combined := make([][]uint8, total)
	for leaf := range combined {
		out := make([]uint8, n)
		for _, i := range m.vmOnly {
			out[i] = VM
		}
		rest := leaf
		for j := len(m.parts) - 1; j >= 0; j-- {
			p := m.parts[j]
			d := rest % p.radix
			rest /= p.radix
			o := p.shut
			if p.gate < 0 {
				o = p.t.leaves[d]
			} else if d > 0 {
				o = p.t.leaves[d-1]
			}
			copy(out[p.index[0]:], o)
		}
		combined[leaf] = out
	}
	m.combined = combined
}

// foldGate drops the test of a gated part's gate from its table, whose weight joins
// the base: the table is looked up only while the gate is present, so the test would
// always hold.
func (p *part) foldGate() {
	t := p.t
	kept := []itest{}
	for _, x := range t.present {
		if int(x.at) == p.gate {
			t.base += x.w
			continue
		}
		kept = append(kept, x)
	}
	t.present = kept
}

// shutOutcomes are a gated part's outcomes while its gate is absent: false, but for a
// rule only the VM evaluates, which stays the VM's.
func (p *part) shutOutcomes() []uint8 {
	o := make([]uint8, len(p.rules))
	for j, r := range p.rules {
		if r.vm {
			o[j] = VM
		}
	}
	return o
}
