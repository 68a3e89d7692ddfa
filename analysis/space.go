package analysis

import (
	"math"
	"sort"
	"strconv"

	"github.com/agentspine/spine/spine/ruleset"
)

// The signal space is a product of variables: the presence of each fact kind a condition
// reads, each scalar field it compares, and the difference of two fields compared with
// each other. Each variable is cut into pieces by the thresholds the conditions compare it
// against, so that every atom of every condition is constant on every piece: deciding a
// condition on one value per piece decides it everywhere.

type varForm int

const (
	varPresence varForm = iota // is the kind's fact asserted
	varNum                     // a float or int field
	varBool
	varStr
	varDiff // fieldA - fieldB, from a comparison of two fields
)

// fieldRef is one field of a fact kind with its domain.
type fieldRef struct {
	kind, field string
	ftype       ruleset.FieldType
	lo, hi      float64   // numeric range, closed where finite
	integer     bool      // only integers occur
	numSet      []float64 // a declared set of numbers, sorted; nil for a range
	strSet      []string  // a closed set of strings; nil when open
	boolVal     bool
}

func (f *fieldRef) name() string { return f.kind + "." + f.field }

type variable struct {
	name   string
	form   varForm
	kind   string     // presence: the kind; fields: the kind they belong to
	fields []fieldRef // varNum/varBool/varStr: one; varDiff: two (a, b)
	needs  []int      // presence variables the variable's atoms read through

	thresholds map[float64]string // numeric: cut points, with how conditions spell them
	literals   []string           // strings: values conditions compare with
	literalSet map[string]bool    // the same, to find one fast
	pieces     []piece
}

// piece is one part of a variable's domain: a numeric interval or point, a truth value,
// a string (or "any other string"), or present/absent.
type piece struct {
	lo, hi     float64
	loIn, hiIn bool
	other      bool // strings: a value none of the conditions mentions
	rep        any  // float64, bool or string: the value atoms are decided on
}

// numPieces cuts a numeric variable's domain at its thresholds.
func numPieces(f fieldRef, cuts []float64) []piece {
	if f.numSet != nil {
		out := make([]piece, 0, len(f.numSet))
		for _, x := range f.numSet {
			out = append(out, piece{lo: x, hi: x, loIn: true, hiIn: true, rep: x})
		}
		return out
	}
	var out []piece
	addInterval := func(lo, hi float64, loIn, hiIn bool) {
		if x, ok := pickNice(lo, hi, loIn, hiIn, f.integer); ok {
			out = append(out, piece{lo: lo, hi: hi, loIn: loIn, hiIn: hiIn, rep: x})
		}
	}
	prev, prevIn := f.lo, !math.IsInf(f.lo, -1)
	for _, t := range cuts {
		if t < f.lo || t > f.hi {
			continue
		}
		if t > prev {
			addInterval(prev, t, prevIn, false)
		}
		addInterval(t, t, true, true)
		prev, prevIn = t, false
	}
	if prev < f.hi || (prev == f.hi && prevIn) {
		addInterval(prev, f.hi, prevIn, !math.IsInf(f.hi, 1))
	}
	return out
}

// pickNice returns a readable number inside the interval: 0 when it holds 0, else the
// number nearest to zero with the fewest decimals.
func pickNice(lo, hi float64, loIn, hiIn, integer bool) (float64, bool) {
	inside := func(x float64) bool {
		return (x > lo || (x == lo && loIn)) && (x < hi || (x == hi && hiIn))
	}
	if lo > hi {
		return 0, false
	}
	if inside(0) {
		return 0, true
	}
	maxDec := 12
	if integer {
		maxDec = 0
	}
	for d := 0; d <= maxDec; d++ {
		scale := math.Pow(10, float64(d))
		var k float64
		if lo >= 0 {
			k = math.Ceil(lo * scale)
		} else {
			k = math.Floor(hi * scale)
		}
		for _, step := range []float64{0, 1, -1} {
			kk := k + step
			if lo >= 0 && step < 0 || lo < 0 && step > 0 {
				continue
			}
			x := decimal(kk, d)
			if inside(x) {
				return x, true
			}
		}
	}
	if integer || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return 0, false
	}
	if mid := lo + (hi-lo)/2; inside(mid) {
		return mid, true
	}
	return 0, false
}

// decimal is k·10^-d, rounded the way a decimal literal of it would be.
func decimal(k float64, d int) float64 {
	x, err := strconv.ParseFloat(strconv.FormatFloat(k, 'f', 0, 64)+"e-"+strconv.Itoa(d), 64)
	if err != nil {
		return k / math.Pow(10, float64(d))
	}
	return x
}

// strPieces are the declared values, or the mentioned ones and one value none mentions.
func strPieces(f fieldRef, literals []string) []piece {
	if f.strSet != nil {
		out := make([]piece, len(f.strSet))
		for i, s := range f.strSet {
			out[i] = piece{rep: s}
		}
		return out
	}
	lits := append([]string(nil), literals...)
	sort.Strings(lits)
	out := make([]piece, 0, len(lits)+1)
	taken := map[string]bool{}
	for _, s := range lits {
		out = append(out, piece{rep: s})
		taken[s] = true
	}
	other := "other"
	for i := 2; taken[other]; i++ {
		other = "other" + strconv.Itoa(i)
	}
	return append(out, piece{rep: other, other: true})
}

var boolPieces = []piece{{rep: false}, {rep: true}}

// diffPieces are the signs of a−b that the two fields' domains allow.
func diffPieces(a, b fieldRef) []piece {
	var out []piece
	for _, sign := range []int{-1, 0, 1} {
		if _, _, ok := pickPair(a, b, sign); ok {
			x := float64(sign)
			p := piece{lo: x, hi: x, loIn: true, hiIn: true, rep: x}
			switch sign {
			case -1:
				p.lo, p.loIn, p.hiIn = math.Inf(-1), false, false
				p.hi = 0
			case 1:
				p.lo, p.hi, p.loIn, p.hiIn = 0, math.Inf(1), false, false
			}
			out = append(out, p)
		}
	}
	return out
}

// pickPair finds values a, b in their fields' domains with sign(a−b) = sign.
func pickPair(a, b fieldRef, sign int) (float64, float64, bool) {
	if a.numSet != nil || b.numSet != nil {
		av, bv := candidates(a), candidates(b)
		for _, x := range av {
			for _, y := range bv {
				if cmpSign(x, y) == sign {
					return x, y, true
				}
			}
		}
		return 0, 0, false
	}
	switch sign {
	case 0:
		lo, hi := math.Max(a.lo, b.lo), math.Min(a.hi, b.hi)
		x, ok := pickNice(lo, hi, true, true, a.integer || b.integer)
		return x, x, ok
	case -1:
		x, ok := pickNice(a.lo, math.Min(a.hi, b.hi), true, a.hi < b.hi, a.integer)
		if !ok {
			return 0, 0, false
		}
		y, ok := pickNice(math.Max(x, b.lo), b.hi, x < b.lo, true, b.integer)
		return x, y, ok && x < y
	default:
		y, ok := pickNice(b.lo, math.Min(b.hi, a.hi), true, b.hi < a.hi, b.integer)
		if !ok {
			return 0, 0, false
		}
		x, ok := pickNice(math.Max(y, a.lo), a.hi, y < a.lo, true, a.integer)
		return x, y, ok && x > y
	}
}

// candidates lists a few values of a numeric field: its set, or nice values of its range.
func candidates(f fieldRef) []float64 {
	if f.numSet != nil {
		return f.numSet
	}
	var out []float64
	if x, ok := pickNice(f.lo, f.hi, true, true, f.integer); ok {
		out = append(out, x)
	}
	for _, x := range []float64{f.lo, f.hi} {
		if !math.IsInf(x, 0) {
			out = append(out, x)
		}
	}
	return out
}

func cmpSign(x, y float64) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
