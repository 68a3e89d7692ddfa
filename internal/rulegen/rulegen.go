// Package rulegen writes random rule files for the tests that check one reading of a
// condition against another: the analysis against the engine, the matcher against expr's
// VM. It owns the generation only: it draws only from the rand.Rand it is given, so a
// seed names a rule file, and it must not load, check or run what it writes (the tests
// do, through the readers they compare). It is for tests only and must not be imported
// by production code.
package rulegen

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// RuleSet writes a small rule file over two kinds, with ties in salience, and
// sometimes a domains file for it.
func RuleSet(rng *rand.Rand) (string, string) {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	consts := []string{"0", "0.5", "1", "-1", "params.p", "params.q", "-params.p"}
	var atom func() string
	atom = func() string {
		switch rng.IntN(12) {
		case 0:
			return "s.x " + pick("<", "<=", ">", ">=", "==", "!=") + " " + pick(consts...)
		case 1:
			return "abs(s.x) " + pick("<", "<=", ">", ">=") + " " + pick(consts...)
		case 2:
			return "s.n " + pick("<", "<=", ">", ">=", "==", "!=") + " " + pick("0", "1", "2", "params.k")
		case 3:
			return pick("s.b", "!s.b", "s.b == false", "s.b != params.flag")
		case 4:
			return "s.m " + pick("==", "!=") + " " + pick(`"a"`, `"b"`, "params.mode")
		case 5:
			return `s.m in ["a", "c"]`
		case 6:
			return pick("s != nil", "s == nil", "nil != t")
		case 7:
			return "t.z " + pick("<", ">=") + " " + pick(consts...)
		case 8:
			return "s.x " + pick("<", "<=", ">", "==") + " s.y"
		case 9:
			return pick("true", "false", "params.flag")
		case 10:
			return "len(s.tags) > 1"
		}
		return "-s.x " + pick("<", ">") + " " + pick(consts...)
	}
	cond := conditions(rng, atom, []string{"&&", "||"}, func() string { return "!" })
	b := ruleFile("{p: 0.5, q: 1.5, k: 1, flag: true, mode: a}", "{z: float}", "[{name: o1}, {name: o2}, {name: o3, terminal: success}]")
	for i, n := 0, 2+rng.IntN(5); i < n; i++ {
		c := cond(2)
		if rng.IntN(2) == 0 {
			c = "s != nil && " + c
		}
		b.rule(i, rng.IntN(3), c, pick("o1", "o2", "o3"))
	}
	domains := ""
	if rng.IntN(2) == 0 {
		domains = pick("s: present\n", "s: optional\n") +
			pick("s.x: [-1, 1]\n", "s.x: {min: 0}\n", "s.x: {values: [0, 0.5, 2]}\n", "") +
			pick("s.n: {min: 0, max: 3, integer: true}\n", "s.n: {values: [1, 2]}\n", "") +
			pick("s.m: [a, b, c]\n", "s.m: [x]\n", "") +
			pick("s.y: [0, 2]\n", "t: present\n", "")
	}
	return b.String(), domains
}

// Wide writes a rule file whose conditions mix every shape the matcher models with
// opaque ones: comparisons of int and float fields (plain, negated, abs) against ints,
// floats, params, NaN, ±Inf and ints beyond 2^53, in either order; bool and string
// fields; presence checks; and/or/not at any depth; arithmetic, lists and field-to-field
// comparisons for the VM.
func Wide(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	cmp := func() string { return pick("<", "<=", ">", ">=", "==", "!=") }
	nums := []string{"0", "1", "-1", "2", "0.5", "-0.5", "2.5", "params.p", "-params.p", "params.q",
		"0.0/0.0", "1e308*10", "-1e308*10", "9007199254740993", "-9007199254740993", "9223372036854775807",
		"-9223372036854775807", "9007199254740992", "1e300", "4.9e-324"}
	terms := []string{"s.x", "s.y", "s.n", "t.z", "t.k", "abs(s.x)", "abs(s.n)", "-s.x", "-s.n", "abs(-t.k)", "-abs(t.z)"}
	var atom func() string
	atom = func() string {
		switch rng.IntN(14) {
		case 0, 1, 2:
			return pick(terms...) + " " + cmp() + " " + pick(nums...)
		case 3:
			return pick(nums...) + " " + cmp() + " " + pick(terms...)
		case 4:
			return pick("s.b", "!s.b", "not s.b", "s.b == false", "s.b != params.flag", "!s.b == params.flag", "true == s.b")
		case 5:
			return pick("s.m", `"b"`) + " " + pick("==", "!=") + " " + pick(`"a"`, `"b"`, `""`, "params.mode", "s.m")
		case 6:
			return pick("s != nil", "s == nil", "nil != t", "t == nil")
		case 7:
			return pick("true", "false", "params.flag", "params.p < 1", "1 > 2")
		case 8:
			return pick("s.x + 1 > 2", "len(s.tags) > 0", "s.x > s.y", `s.m in ["a", "b"]`, "s.n % 2 == 0", `s.m < "b"`, "t.k * 2 >= s.n")
		}
		return pick(terms...) + " " + cmp() + " " + pick(nums...)
	}
	cond := conditions(rng, atom, []string{"&&", "||", "and", "or"}, func() string { return pick("!", "not ") })
	b := ruleFile("{p: 0.5, q: 1.5, flag: true, mode: a}", "{z: float, k: int}", "[{name: o1}, {name: o2}]")
	for i, n := 0, 1+rng.IntN(8); i < n; i++ {
		b.rule(i, rng.IntN(3), cond(3), pick("o1", "o2"))
	}
	return b.String()
}

// fileWriter writes a rule file over kind s (the same fields in every file) and kind t.
type fileWriter struct{ strings.Builder }

// ruleFile starts a rule file with its params, t's fields and its objectives, and opens
// its rules.
func ruleFile(params, tFields, objectives string) *fileWriter {
	b := &fileWriter{}
	b.WriteString("params: " + params + "\n")
	b.WriteString("facts:\n  s:\n    fields: {x: float, y: float, n: int, b: bool, m: string, tags: strings}\n  t:\n    fields: " + tFields + "\n")
	b.WriteString("objectives: " + objectives + "\n")
	b.WriteString("rules:\n")
	return b
}

// rule adds rule r<i>.
func (b *fileWriter) rule(i, salience int, when, objective string) {
	fmt.Fprintf(b, "  - {name: r%d, salience: %d, when: '%s', then: {objective: %s}}\n", i, salience, when, objective)
}

// conditions returns a writer of random conditions up to a depth: an atom, or a
// junction of two conditions by one of joins, or a negation spelt by not.
func conditions(rng *rand.Rand, atom func() string, joins []string, not func() string) func(depth int) string {
	var cond func(depth int) string
	cond = func(depth int) string {
		if depth == 0 || rng.IntN(3) == 0 {
			return atom()
		}
		if i := rng.IntN(len(joins) + 1); i < len(joins) {
			return "(" + cond(depth-1) + " " + joins[i] + " " + cond(depth-1) + ")"
		}
		return not() + "(" + cond(depth-1) + ")"
	}
	return cond
}

// Value is a random value of a field type (float, int, bool, string, strings), among
// them the ones that tell comparisons apart: ±0, NaN, ±Inf, the largest and smallest
// ints, and ints and floats on either side of 2^53.
func Value(rng *rand.Rand, typ string) any {
	switch typ {
	case "float":
		fs := []float64{0, math.Copysign(0, -1), 0.5, -0.5, 1, -1, 2, 2.5, 1.5, math.NaN(), math.Inf(1), math.Inf(-1),
			1e308, 1e300, 4.9e-324, 1 << 53, 1<<53 + 2, -(1 << 53), rng.Float64()*4 - 2, rng.NormFloat64() * 1e6}
		return fs[rng.IntN(len(fs))]
	case "int":
		is := []int64{0, 1, -1, 2, -2, 3, 1 << 53, 1<<53 + 1, -(1 << 53), -(1<<53 + 1), math.MaxInt64, math.MinInt64,
			math.MaxInt64 - 1, math.MinInt64 + 1, int64(rng.Uint64()), rng.Int64N(7) - 3}
		return is[rng.IntN(len(is))]
	case "bool":
		return rng.IntN(2) == 0
	case "string":
		ss := []string{"", "a", "b", "c", "é", "a\x00", "params"}
		return ss[rng.IntN(len(ss))]
	}
	return [][]string{nil, {}, {"a"}, {"a", "b"}}[rng.IntN(4)]
}
