package cond

import (
	"math"
	"slices"
)

// key classes.
const (
	kPresent = iota
	kBool
	kString
	kInt   // an int term compared with int constants, in int64
	kFloat // a term compared in float64 (a float field, or an int one against a float)
)

// A key is a fact field as conditions read it (through the same negations and abs,
// compared in the same number domain), or a kind's presence. The constants compared
// with it, sorted, cut its values into regions: 2i below threshold i (and above those
// before it), 2i+1 equal to it, 2n above them all and, for floats, 2n+1 for NaN; a
// string key's region is the literal it equals, or none. Within a region every atom on
// the key has one truth value.
type key struct {
	class uint8
	int   bool // kFloat: the field is an int, converted after fn
	kind  int
	slot  int
	fn    string
	ithr  []int64   // kInt: sorted thresholds
	fthr  []float64 // kFloat: sorted thresholds, no NaN
	sthr  []string  // kString: the literals
	off   []int32   // per region, its class times the key's stride in its part's table
}

func (k *key) regions() int {
	switch k.class {
	case kPresent, kBool:
		return 2
	case kString:
		return len(k.sthr) + 1
	case kInt:
		return 2*len(k.ithr) + 1
	}
	return 2*len(k.fthr) + 2
}

// holds evaluates the atom on a value of region r, as expr would.
func (k *key) holds(r int, a *Atom) bool {
	switch k.class {
	case kPresent, kBool:
		return (r == 1) == a.Want
	case kString:
		eq := r < len(k.sthr) && k.sthr[r] == a.K.S
		return eq == (a.Cmp == "==")
	case kInt:
		v, ok := intRep(k.ithr, r)
		if !ok {
			return false // no value lies in the region
		}
		return compare(a.Cmp, v, a.K.I)
	}
	return compare(a.Cmp, floatRep(k.fthr, r), a.K.float())
}

// intRep is a value of region r of the sorted thresholds t.
func intRep(t []int64, r int) (int64, bool) {
	i := r / 2
	if r%2 == 1 {
		return t[i], true
	}
	switch {
	case len(t) == 0:
		return 0, true
	case i == 0:
		return t[0] - 1, t[0] != math.MinInt64
	case i == len(t):
		return t[i-1] + 1, t[i-1] != math.MaxInt64
	}
	return t[i-1] + 1, t[i-1]+1 < t[i]
}

// floatRep is a value of region r of the sorted thresholds t (NaN for the last region).
// An empty region gets some value: it is never looked up.
func floatRep(t []float64, r int) float64 {
	i := r / 2
	switch {
	case r == 2*len(t)+1:
		return math.NaN()
	case r%2 == 1:
		return t[i]
	case len(t) == 0:
		return 0
	case i == 0:
		return math.Nextafter(t[0], math.Inf(-1))
	case i == len(t):
		return math.Nextafter(t[i-1], math.Inf(1))
	case math.IsInf(t[i-1], -1):
		return math.Nextafter(t[i], math.Inf(-1))
	case math.IsInf(t[i], 1):
		return math.Nextafter(t[i-1], math.Inf(1))
	}
	return t[i-1]/2 + t[i]/2
}

// region is the region of the key's value in in; a table tests the presence and bool
// keys itself.
func (k *key) region(in *Input) int {
	switch k.class {
	case kString:
		if j := slices.Index(k.sthr, in.Str[k.slot]); j >= 0 {
			return j
		}
		return len(k.sthr)
	case kInt:
		return region(k.ithr, term(in.Int[k.slot], k.fn))
	}
	v := term(in.Num[k.slot], k.fn)
	if k.int {
		v = float64(term(in.Int[k.slot], k.fn))
	}
	if v != v {
		return 2*len(k.fthr) + 1 // NaN, which no threshold orders
	}
	return region(k.fthr, v)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// term applies fn to a field as expr does: an int's negation and abs wrap at the
// smallest int.
func term[T int64 | float64](x T, fn string) T {
	for i := 0; i < len(fn); i++ {
		if fn[i] == '-' || x < 0 {
			x = -x
		}
	}
	return x
}

// maxScan is the most thresholds a region scans, and the most tests of a key that a
// table's lookup makes; a key with more is searched.
const maxScan = 8

// region is v's region among the sorted thresholds t: 2i below t[i] (and above those
// before it), 2i+1 equal to t[i], 2·len(t) above them all.
func region[T int64 | float64](t []T, v T) int {
	if len(t) > maxScan {
		i, eq := slices.BinarySearch(t, v)
		return 2*i + b2i(eq)
	}
	return scan(t, v)
}

// scan is region for a few thresholds: a scan is quicker than a search up to maxScan.
func scan[T int64 | float64](t []T, v T) (r int) {
	for _, x := range t {
		if v < x {
			return r
		}
		if r += 2; v == x {
			return r - 1
		}
	}
	return r
}
