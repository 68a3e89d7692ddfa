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
	for j, ok := range r[a.v] {
		if !ok {
			continue
		}
		if a.test(v.pieces[j].rep) {
			out |= oT
		} else {
			out |= oF
		}
	}
	return out
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
	case fAnd:
		l := sp.eval(x.l, r)
		out := l & (oF | oE)
		if l.has(oT) {
			out |= sp.eval(x.r, r)
		}
		return out
	case fOr:
		l := sp.eval(x.l, r)
		out := l & (oT | oE)
		if l.has(oF) {
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
	case fAnd:
		if i := sp.findSplit(x.l, r); i >= 0 {
			return i
		}
		if sp.eval(x.l, r).has(oT) {
			return sp.findSplit(x.r, r)
		}
	case fOr:
		if i := sp.findSplit(x.l, r); i >= 0 {
			return i
		}
		if sp.eval(x.l, r).has(oF) {
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
