package cond

import "math"

// Witnesses lists values of a field of type t that reach every region the constants ks
// cut: each constant, its negation (for negated and abs terms), and the nearest values
// on either side. Values working memory refuses (NaN, ±Inf, ints beyond ±2^53) are left
// out. These are the cuts of the analysis's partition; package engine checks the matcher
// against expr's VM on them when a rule set loads.
func Witnesses(t Type, ks []Const) []Const {
	var out []Const
	seen := map[Const]bool{}
	add := func(c Const) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	addF := func(f float64) {
		switch {
		case math.IsNaN(f) || math.IsInf(f, 0):
		case t == TFloat:
			add(Const{T: TFloat, F: f})
		case t == TInt:
			for _, g := range []float64{math.Floor(f) - 1, math.Floor(f), math.Ceil(f), math.Ceil(f) + 1} {
				if math.Abs(g) <= 1<<53 {
					add(Const{T: TInt, I: int64(g)})
				}
			}
		}
	}
	switch t {
	case TBool:
		return []Const{{T: TBool}, {T: TBool, B: true}}
	case TString:
		add(Const{T: TString})
		add(Const{T: TString, S: "\x00none of the literals"})
	case TFloat, TInt:
		addF(0)
	}
	for _, k := range ks {
		if k.T == TString {
			add(k)
			continue
		}
		if !isNum(k.T) {
			continue
		}
		f := k.float()
		if k.T == TInt && t == TInt && (k.I > 1<<53 || k.I < -(1<<53)) {
			continue // no field value reaches it: the ends of the range stand for it
		}
		for _, v := range []float64{f, -f} {
			addF(v)
			addF(math.Nextafter(v, math.Inf(-1)))
			addF(math.Nextafter(v, math.Inf(1)))
		}
	}
	if t == TInt {
		add(Const{T: TInt, I: 1 << 53})
		add(Const{T: TInt, I: -(1 << 53)})
	}
	return out
}
