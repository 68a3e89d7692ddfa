package engine

import (
	"slices"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// leafCache keeps, per leaf of the matcher's table, the evaluation list a cycle over
// all rules writes when no rule is refracted: the leaf fixes every rule's outcome, so a
// cycle that reaches a leaf seen before copies the list and looks at refraction for its
// true rules only. A leaf where some rule is left to the VM is not kept.
type leafCache struct {
	m       *cond.Matcher // the matcher whose leaves these are; another one empties the cache
	entries []*leafEvals  // by leaf; nil when not built yet
	noKeep  []bool        // by leaf: a rule of the leaf is left to the VM
	kept    int           // RuleEvals kept, bounded by maxLeafEvals
}

type leafEvals struct {
	evals []trace.RuleEval // every rule in the static order, refracted none
	trues []int32          // positions of the true rules, in the static order
	// agenda is the conflict set's when no rule is refracted, kept when the true rules
	// read the same kinds: then they have one recency, and the leaf fixes the order.
	// Its names are nil otherwise.
	agenda agenda
	// With an agenda: the kinds the true rules read, the one when they read one (-1
	// otherwise), and the rules' indexes.
	reads     []int
	read      int
	trueRules []int32
}

// maxLeafEvals bounds the RuleEvals a session keeps for leaves: a rule set of thousands
// of rules reaching many leaves evaluates them one by one instead.
const maxLeafEvals = 1 << 16

// get returns the list of leaf, building it from outcomes (by rule index) the first
// time; nil when the leaf is not kept.
func (c *leafCache) get(m *cond.Matcher, leaf int, order []*ruleset.Rule, outcomes []uint8) *leafEvals {
	if leaf < 0 {
		return nil
	}
	if c.m != m {
		*c = leafCache{m: m, entries: make([]*leafEvals, m.Leaves()), noKeep: make([]bool, m.Leaves())}
	}
	if e := c.entries[leaf]; e != nil || c.noKeep[leaf] {
		return e
	}
	if c.kept+len(order) > maxLeafEvals {
		return nil
	}
	e := &leafEvals{evals: make([]trace.RuleEval, len(order)), read: -1}
	for pos, r := range order {
		e.evals[pos] = trace.RuleEval{Rule: r.Name, Result: ResultFalse}
		switch outcomes[r.Index()] {
		case cond.VM:
			c.noKeep[leaf] = true
			return nil
		case cond.True:
			e.evals[pos].Result = ResultTrue
			e.trues = append(e.trues, int32(pos))
		}
	}
	var cset []candidate
	for _, pos := range e.trues {
		if r := order[pos]; slices.Equal(r.ReadKinds(), order[e.trues[0]].ReadKinds()) {
			cset = append(cset, candidate{rule: r, pos: int(pos)})
		}
	}
	if len(cset) == len(e.trues) {
		e.agenda = agendaOf(cset, []string{})
		for _, c := range cset {
			e.trueRules = append(e.trueRules, int32(c.rule.Index()))
		}
		if len(cset) > 0 {
			e.reads = cset[0].rule.ReadKinds()
		}
		if len(e.reads) == 1 {
			e.read = e.reads[0]
		}
	}
	c.entries[leaf] = e
	c.kept += len(order)
	return e
}
