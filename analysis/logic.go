package analysis

// A region is a set of pieces per variable: the inputs whose every variable lies in one of
// its allowed pieces. Conditions are evaluated on regions to the set of outcomes they can
// have there, following the engine: && and || short-circuit, and reading a field of an
// absent fact is an error that makes the rule not fire.

type region [][]bool

func (sp *space) fullRegion() region {
	r := make(region, len(sp.vars))
	for i, v := range sp.vars {
		r[i] = make([]bool, len(v.pieces))
		for j := range r[i] {
			r[i][j] = true
		}
	}
	return r
}

// restrict returns a copy of r with variable v limited to the pieces keep accepts.
func (r region) restrict(v int, keep func(j int) bool) region {
	out := make(region, len(r))
	copy(out, r)
	out[v] = make([]bool, len(r[v]))
	for j, ok := range r[v] {
		out[v][j] = ok && keep(j)
	}
	return out
}

func (r region) empty() bool {
	for _, ps := range r {
		some := false
		for _, ok := range ps {
			some = some || ok
		}
		if !some {
			return true
		}
	}
	return false
}

// oset is a set of outcomes of a condition on a region.
type oset uint8

const (
	oT oset = 1 << iota
	oF
	oE
)

func (s oset) has(o oset) bool { return s&o != 0 }
func (s oset) single() bool    { return s == oT || s == oF || s == oE }

// presence reports whether kind presence variable p may be absent and may be present.
func (sp *space) presence(r region, p int) (absent, present bool) {
	for j, ok := range r[p] {
		if ok {
			if sp.vars[p].pieces[j].rep.(bool) {
				present = true
			} else {
				absent = true
			}
		}
	}
	return
}

func (sp *space) evalAtom(a *atom, r region) oset {
	if a.opaque != "" {
		return oT | oF | oE
	}
	v := sp.vars[a.v]
	var out oset
	allPresent := true
	for _, p := range v.needs {
		absent, present := sp.presence(r, p)
		if absent {
			out |= oE
		}
		allPresent = allPresent && present
	}
	if !allPresent {
		return out
	}
	row := r[a.v]
	lo, hi := 0, len(row)-1
	if len(row) >= minSpan && len(sp.spans) > 0 {
		if sn, ok := sp.spans[&row[0]]; ok && sn.idx != nil && a.truth == nil {
			// A few pieces of many: testing them beats tabulating the atom.
			for k, j := range sn.idx {
				if out |= outcome(a.test(v.pieces[j].rep)); out&(oT|oF) == oT|oF {
					sp.steps += k + 1
					return out
				}
			}
			sp.steps += len(sn.idx)
			return out
		}
	}
	truth := sp.truth(a)
	if len(row) >= minSpan && len(sp.spans) > 0 {
		if sn, ok := sp.spans[&row[0]]; ok {
			lo, hi = sn.lo, sn.hi
			if a.cut == -1 || a.cut >= 0 && (a.cut <= lo || a.cut > hi) { // the same all over lo..hi
				sp.steps++
				return out | outcome(truth[lo])
			}
			if sn.dense && a.cut >= 0 { // every piece of lo..hi allowed, and truth changes inside
				sp.steps++
				return out | oT | oF
			}
			if sn.idx != nil {
				for k, j := range sn.idx {
					if out |= outcome(truth[j]); out&(oT|oF) == oT|oF {
						sp.steps += k + 1
						return out
					}
				}
				sp.steps += len(sn.idx)
				return out
			}
		}
	}
	for j := lo; j <= hi; j++ {
		if !row[j] {
			continue
		}
		if out |= outcome(truth[j]); out&(oT|oF) == oT|oF {
			sp.steps += j - lo + 1
			return out
		}
	}
	sp.steps += hi - lo + 1
	return out
}

func outcome(t bool) oset {
	if t {
		return oT
	}
	return oF
}

// minSpan is the size from which a narrowed row is worth a span: smaller rows are scanned.
const minSpan = 64

// span describes a row of a region the never-fires search works on: its allowed pieces
// lie in lo..hi, and are exactly idx when idx is not nil.
type span struct {
	lo, hi int
	dense  bool // every piece of lo..hi is allowed
	idx    []int32
}

// truth is the atom's test on each piece of its variable, computed once the pieces are cut.
func (sp *space) truth(a *atom) []bool {
	if a.truth == nil {
		pieces := sp.vars[a.v].pieces
		sp.steps += len(pieces)
		a.truth = make([]bool, len(pieces))
		a.cut = -1
		for j, p := range pieces {
			a.truth[j] = a.test(p.rep)
			switch {
			case j == 0 || a.truth[j] == a.truth[j-1]:
			case a.cut == -1:
				a.cut = j
			default:
				a.cut = -2 // more than one change: no shortcut
			}
		}
	}
	return a.truth
}

func (sp *space) eval(f formula, r region) oset {
	switch x := f.(type) {
	case fConst:
		if x.v {
			return oT
		}
		return oF
	case fAtom:
		return sp.evalAtom(sp.atoms[x.a], r)
	case fOpaque:
		return oT | oF | oE
	case fNot:
		s := sp.eval(x.x, r)
		out := s & oE
		if s.has(oT) {
			out |= oF
		}
		if s.has(oF) {
			out |= oT
		}
		return out
	case fJunction:
		l := sp.eval(x.l, r)
		out := l &^ x.goOn
		if l.has(x.goOn) {
			out |= sp.eval(x.r, r)
		}
		return out
	}
	panic("analysis: unknown formula")
}

// findSplit returns an atom whose value is not yet decided on r and that can change the
// formula's outcome there, or -1 when only opaque parts are left undecided.
func (sp *space) findSplit(f formula, r region) int {
	switch x := f.(type) {
	case fAtom:
		a := sp.atoms[x.a]
		if a.opaque == "" && !sp.evalAtom(a, r).single() {
			return x.a
		}
	case fNot:
		return sp.findSplit(x.x, r)
	case fJunction:
		if i := sp.findSplit(x.l, r); i >= 0 {
			return i
		}
		if sp.eval(x.l, r).has(x.goOn) {
			return sp.findSplit(x.r, r)
		}
	}
	return -1
}

// split cuts r in two by an undecided atom: by the presence of a kind it reads when that
// is open, else by the atom's truth.
func (sp *space) split(r region, ai int) (region, region) {
	a := sp.atoms[ai]
	v := sp.vars[a.v]
	for _, p := range v.needs {
		if absent, present := sp.presence(r, p); absent && present {
			pieces := sp.vars[p].pieces
			return r.restrict(p, func(j int) bool { return pieces[j].rep.(bool) }),
				r.restrict(p, func(j int) bool { return !pieces[j].rep.(bool) })
		}
	}
	return r.restrict(a.v, func(j int) bool { return a.test(v.pieces[j].rep) }),
		r.restrict(a.v, func(j int) bool { return !a.test(v.pieces[j].rep) })
}
