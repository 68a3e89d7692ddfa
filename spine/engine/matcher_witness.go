package engine

import (
	"slices"

	"github.com/agentspine/spine/spine/cond"
)

// witnessSet is the facts a rule's condition reads and the values checkMatcher tries
// for each field.
type witnessSet struct {
	rs     *RuleSet
	kinds  []int    // kinds the condition reads, present or absent
	fields [][2]int // kind, field
	values [][]any  // per field, the values to try
}

func (rs *RuleSet) witnesses(r *Rule) *witnessSet {
	w := &witnessSet{rs: rs}
	var consts [][]cond.Const
	var types []cond.Type
	r.cond.Walk(func(n *cond.Node) {
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

// points lists the fact combinations to try: every combination of field values when
// there are at most maxWitnesses, else each field's values with the others at their
// first; then each kind absent in turn.
func (w *witnessSet) points() []map[int]Fields {
	pick := make([]int, len(w.fields))
	var out []map[int]Fields
	emit := func(absent int) {
		facts := map[int]Fields{}
		for _, k := range w.kinds {
			if k != absent {
				facts[k] = Fields{}
			}
		}
		for i, f := range w.fields {
			if fs, ok := facts[f[0]]; ok {
				fs[w.rs.kinds[f[0]].Fields[f[1]].Name] = w.values[i][pick[i]]
			}
		}
		out = append(out, facts)
	}
	total := 1
	for _, v := range w.values {
		total *= len(v)
		if total > maxWitnesses {
			break
		}
	}
	if total <= maxWitnesses {
		for {
			emit(-1)
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
		emit(-1)
		for i := range pick {
			for j := 1; j < len(w.values[i]); j++ {
				pick[i] = j
				emit(-1)
			}
			pick[i] = 0
		}
	}
	for _, k := range w.kinds {
		emit(k)
	}
	return out
}
