package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
)

// maxWitnesses bounds the fact combinations checkMatcher tries per rule.
const maxWitnesses = 256

// checkBudget bounds checkMatcher's work, counted as VM runs times fact kinds (the VM
// finds a kind by name, so a run costs in proportion to them): a rule set of thousands of
// kinds and rules is checked on its first rules, not for minutes. The generated rule sets
// of FuzzMatcherMatchesVM check every rule.
const checkBudget = 4_000_000

var errSpent = errors.New("the check's budget is spent")

// checkMatcher evaluates every analysable rule both ways, with the matcher and with expr's
// VM, on witnesses of its regions: each field it reads at, just below and just above
// every constant compared with it, one field varied at a time and, while their number
// stays under maxWitnesses, every combination, with the facts present and absent. An
// error names the facts on which they disagree, and the rule is returned with it.
func checkMatcher(rs *ruleset.RuleSet) (*ruleset.Rule, error) {
	wm := NewWorkingMemory(rs, nil)
	m, kinds := rs.Matcher(), rs.Kinds()
	var machine vm.VM
	spent := 0
	for _, r := range rs.Rules() {
		if r.Cond() == nil || !m.Analysable(r.Index()) {
			continue
		}
		w := witnesses(rs, r)
		err := w.points(func(facts map[int]ruleset.Fields, absent int) error {
			if spent += len(kinds); spent > checkBudget {
				return errSpent
			}
			for _, i := range w.kinds { // the only kinds the rule reads, set by earlier points
				kf := &wm.kinds[i]
				if kf.live != nil { // nobody else saw it: the next point reuses it
					kf.spare = kf.live
				}
				kf.has, kf.live = false, nil
				wm.syncEnv(kinds[i])
			}
			for _, kind := range w.kinds {
				if kind == absent {
					continue
				}
				if err := wm.Set(kinds[kind].Name, "", facts[kind]); err != nil {
					return fmt.Errorf("rule %s: witness %v: %w", r.Name, facts[kind], err)
				}
			}
			outcome := m.Outcome(r.Index(), &wm.in)
			if outcome == cond.VM {
				return nil // a fact it reads is absent: the VM decides anyway
			}
			got := outcome == cond.True
			out, err := machine.Run(r.Program(), wm.envValue())
			if want, isBool := out.(bool); err != nil || !isBool || want != got {
				return fmt.Errorf("rule %s: the matcher gives %v and expr %v (error %v) on %s", r.Name, got, out, err, describeFacts(rs, facts, absent))
			}
			return nil
		})
		if err == errSpent {
			break
		}
		if err != nil {
			return r, err
		}
	}
	return nil, nil
}

func describeFacts(rs *ruleset.RuleSet, facts map[int]ruleset.Fields, absent int) string {
	s := ""
	for _, k := range rs.Kinds() {
		if f, ok := facts[k.Index()]; ok && k.Index() != absent {
			s += fmt.Sprintf(" %s%v", k.Name, map[string]any(f))
		}
	}
	if s == "" {
		return "no facts"
	}
	return s[1:]
}

// witnessSet is the facts a rule's condition reads and the values checkMatcher tries
// for each field.
type witnessSet struct {
	rs     *ruleset.RuleSet
	kinds  []int    // kinds the condition reads, present or absent
	fields [][2]int // kind, field
	values [][]any  // per field, the values to try
}

func witnesses(rs *ruleset.RuleSet, r *ruleset.Rule) *witnessSet {
	w := &witnessSet{rs: rs}
	var consts [][]cond.Const
	var types []cond.Type
	r.Cond().Walk(func(n *cond.Node) {
		if n.Op != cond.OpAtom {
			return
		}
		a := n.Atom
		if !slices.Contains(w.kinds, a.Kind) {
			w.kinds = append(w.kinds, a.Kind)
		}
		if !a.ReadsField() {
			return
		}
		i := slices.Index(w.fields, [2]int{a.Kind, a.Field})
		if i < 0 {
			i = len(w.fields)
			w.fields = append(w.fields, [2]int{a.Kind, a.Field})
			consts, types = append(consts, nil), append(types, a.Type)
		}
		consts[i] = append(consts[i], a.K)
	})
	for i := range w.fields {
		var vals []any
		for _, c := range cond.Witnesses(types[i], consts[i]) {
			switch c.T {
			case cond.TFloat:
				vals = append(vals, c.F)
			case cond.TInt:
				vals = append(vals, c.I)
			case cond.TBool:
				vals = append(vals, c.B)
			case cond.TString:
				vals = append(vals, c.S)
			}
		}
		w.values = append(w.values, vals)
	}
	return w
}

// points calls try with each fact combination to try, until one fails: every
// combination of field values when there are at most maxWitnesses, else each field's
// values with the others at their first; then each kind absent in turn. facts holds
// every kind the rule reads, absent (-1 for none) is the one to leave out, and both are
// reused from call to call.
func (w *witnessSet) points(try func(facts map[int]ruleset.Fields, absent int) error) error {
	pick := make([]int, len(w.fields))
	facts := map[int]ruleset.Fields{}
	for _, k := range w.kinds {
		facts[k] = ruleset.Fields{}
	}
	emit := func(absent int) error {
		for i, f := range w.fields {
			facts[f[0]][w.rs.Kinds()[f[0]].Fields[f[1]].Name] = w.values[i][pick[i]]
		}
		return try(facts, absent)
	}
	total := 1
	for _, v := range w.values {
		total = min(total*len(v), maxWitnesses+1)
	}
	if total <= maxWitnesses {
		for {
			if err := emit(-1); err != nil {
				return err
			}
			i := 0
			for ; i < len(pick); i++ {
				if pick[i]++; pick[i] < len(w.values[i]) {
					break
				}
				pick[i] = 0
			}
			if i == len(pick) {
				break
			}
		}
	} else {
		if err := emit(-1); err != nil {
			return err
		}
		for i := range pick {
			for j := 1; j < len(w.values[i]); j++ {
				pick[i] = j
				if err := emit(-1); err != nil {
					return err
				}
			}
			pick[i] = 0
		}
	}
	for _, k := range w.kinds {
		if err := emit(k); err != nil {
			return err
		}
	}
	return nil
}
