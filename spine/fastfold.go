package spine

import (
	"github.com/agentspine/spine/internal/exprfold"
	"math"
	"unsafe"

	"github.com/expr-lang/expr/ast"
)

// Three rewrites keep the closure tree of a predicate shallow; none changes a result, an
// error or the order in which facts are read:
//   - a node that reads no fact (literals and params) is evaluated once, at compile time;
//   - a run of && (or of ||) becomes one loop over its operands, left to right, stopping
//     where the short-circuit would; operands that are constant and cannot change the
//     result are dropped;
//   - a comparison of a fact's number field (or its abs) with a constant, a bool field,
//     and a nil check of a fact, are data (a test) read in that loop, not closures: a
//     cycle over many rules then walks a few compact arrays.
//
// A cycle also skips the leading tests a rule shares with the rule evaluated just
// before it that held there (see sharedPrefix and runCycle).

// constant reports whether n reads no fact: literals and params combined by operators.
func constant(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.StringNode:
		return true
	case *ast.MemberNode:
		return isParams(x)
	case *ast.UnaryNode:
		return constant(x.Node)
	case *ast.BinaryNode:
		return constant(x.Left) && constant(x.Right)
	case *ast.BuiltinNode:
		return x.Name == "abs" && len(x.Arguments) == 1 && constant(x.Arguments[0])
	}
	return false
}

// constBool evaluates a constant boolean node; ok is false when n is not constant.
func (c *fastCompiler) constBool(n ast.Node) (v, ok bool) {
	if !constant(n) {
		return false, false
	}
	f := c.booleanNode(n)
	if f == nil {
		return false, false
	}
	var fc fastCtx
	v = f(&fc)
	return v, fc.err == nil
}

// constNum evaluates a constant numeric node; ok is false when n is not constant.
func (c *fastCompiler) constNum(n ast.Node) (v float64, ok bool) {
	if !constant(n) {
		return 0, false
	}
	f := c.numberNode(n)
	if f == nil {
		return 0, false
	}
	var fc fastCtx
	v = f(&fc)
	return v, fc.err == nil
}

// chain compiles a run of && (all) or of || (!all) operators into one closure over a
// list of tests.
func (c *fastCompiler) chain(x *ast.BinaryNode, all bool) boolFn {
	operands := chainOperands(x, all)
	// expr folds "x || true" to true and "x && false" to false before it runs, so such
	// an operand decides the chain even when one before it would fail (a field of an
	// absent fact). A param does not: expr reads it at run time.
	if v, ok := exprfold.Bool(x); ok {
		return func(*fastCtx) bool { return v }
	}
	var ts []test
	for _, n := range operands {
		if v, ok := c.constBool(n); ok {
			if v == all {
				continue // true in an &&, false in an ||: no effect
			}
			ts = append(ts, test{op: opFn, fn: func(*fastCtx) bool { return v }}) // decides the chain
			break
		}
		if t, ok := c.simpleTest(n); ok {
			ts = append(ts, t)
			continue
		}
		f := c.boolean(n)
		if f == nil {
			return nil
		}
		ts = append(ts, test{op: opFn, fn: f})
	}
	if len(ts) == 0 {
		return func(*fastCtx) bool { return all }
	}
	return c.run(x, ts, all)
}

// chainOperands lists the operands of a run of && (all) or || (!all), left to right.
func chainOperands(n ast.Node, all bool) []ast.Node {
	if b, ok := n.(*ast.BinaryNode); ok {
		isAnd := b.Operator == "&&" || b.Operator == "and"
		isOr := b.Operator == "||" || b.Operator == "or"
		if (all && isAnd) || (!all && isOr) {
			return append(chainOperands(b.Left, all), chainOperands(b.Right, all)...)
		}
	}
	return []ast.Node{n}
}

// numField is a number field of a singleton fact, or the abs of one, read in place.
type numField struct {
	kind  int
	off   uintptr
	isInt bool
	abs   bool
	name  string
}

func (c *fastCompiler) numField(n ast.Node) (numField, bool) {
	abs := false
	if b, ok := n.(*ast.BuiltinNode); ok && b.Name == "abs" && len(b.Arguments) == 1 {
		n, abs = b.Arguments[0], true
	}
	m, ok := n.(*ast.MemberNode)
	if !ok || isParams(m) {
		return numField{}, false
	}
	t, ok := c.memberType(m)
	if !ok || (t != TypeFloat && t != TypeInt) {
		return numField{}, false
	}
	kind, off, name := c.field(m)
	return numField{kind: kind, off: off, isInt: t == TypeInt, abs: abs, name: name}, true
}

// mirrored is the operator that gives the same result with its operands swapped.
var mirrored = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

// testOp says how a test is evaluated: a closure, a nil check, a bool field, or a
// comparison of a number field with a constant. A comparison's op is the way it reads
// the field (a float or an int, as is or its abs) plus its comparison operator, so that
// one switch (a jump table) picks both.
type testOp uint8

const (
	opFn       testOp = iota
	opNil             // the singleton fact is absent
	opNotNil          // the singleton fact is present
	opTrue            // a bool field is true; this op and those after it read a field
	opFalse           // a bool field is false
	opFloat           // a float field, plus a cmp
	opInt      = opFloat + numCmps
	opAbsFloat = opInt + numCmps
	opAbsInt   = opAbsFloat + numCmps
)

// Comparison operators, added to a field read.
const (
	cmpEq testOp = iota
	cmpNe
	cmpLt
	cmpLe
	cmpGt
	cmpGe
	numCmps
)

var cmpOps = map[string]testOp{"==": cmpEq, "!=": cmpNe, "<": cmpLt, "<=": cmpLe, ">": cmpGt, ">=": cmpGe}

// test is one operand of a chain. The commonest shapes (a number field, or its abs,
// against a constant; a bool field; a singleton fact against nil) are data, evaluated
// in place; anything else is a closure.
type test struct {
	op   testOp
	kind int     // the singleton kind read
	off  uintptr // the field's offset in the kind's payload
	k    float64 // the constant
	name string  // kind.field, for the error when the fact is absent
	fn   boolFn  // opFn
}

// testRun is a run of && (all) or of || (!all) tests.
type testRun struct {
	ts  []test
	all bool
}

func (r *testRun) eval(fc *fastCtx) bool {
	v, _ := evalTests(fc, r.ts, r.all, 0)
	return v
}

// sharedPrefix is how many leading tests two && runs have in common. Tests held as data
// only read facts, so within one cycle such a test has the same outcome in both runs.
func sharedPrefix(a, b *testRun) int {
	if a == nil || b == nil || !a.all || !b.all {
		return 0
	}
	n := 0
	for n < len(a.ts) && n < len(b.ts) && a.ts[n].same(&b.ts[n]) {
		n++
	}
	return n
}

// same reports whether t and u are the same test held as data.
func (t *test) same(u *test) bool {
	return t.op != opFn && t.op == u.op && t.kind == u.kind && t.off == u.off && t.k == u.k
}

// run compiles the tests ts that node n combines with && (all) or || (!all).
func (c *fastCompiler) run(n ast.Node, ts []test, all bool) boolFn {
	r := &testRun{ts: ts, all: all}
	c.lastRun, c.lastNode = r, n
	return r.eval
}

// evalTests evaluates a run of && (all) or of || (!all) tests left to right from
// ts[from] (the caller knows the ones before hold), stopping where the short-circuit
// would; stop is the index it stopped at, len(ts) when it ran through. A test that
// fails (a field of an absent fact) records the error in fc and stops the run with
// false, as expr does. The tests are evaluated inline, one switch case (a jump table)
// per shape: a test costs no call.
func evalTests(fc *fastCtx, ts []test, all bool, from int) (v bool, stop int) {
	for i := from; i < len(ts); i++ {
		t := &ts[i]
		if t.op >= opTrue { // a field test, the commonest: checked first
			p := fc.ptrs[t.kind]
			if p == nil {
				fc.absent(t.name)
				return false, i
			}
			f := unsafe.Add(p, t.off)
			switch t.op {
			case opTrue:
				v = *(*bool)(f)
			case opFalse:
				v = !*(*bool)(f)

			case opFloat + cmpEq:
				v = *(*float64)(f) == t.k
			case opFloat + cmpNe:
				v = *(*float64)(f) != t.k
			case opFloat + cmpLt:
				v = *(*float64)(f) < t.k
			case opFloat + cmpLe:
				v = *(*float64)(f) <= t.k
			case opFloat + cmpGt:
				v = *(*float64)(f) > t.k
			case opFloat + cmpGe:
				v = *(*float64)(f) >= t.k

			// Int fields are bounded by 2^53: as floats they are exact.
			case opInt + cmpEq:
				v = float64(*(*int)(f)) == t.k
			case opInt + cmpNe:
				v = float64(*(*int)(f)) != t.k
			case opInt + cmpLt:
				v = float64(*(*int)(f)) < t.k
			case opInt + cmpLe:
				v = float64(*(*int)(f)) <= t.k
			case opInt + cmpGt:
				v = float64(*(*int)(f)) > t.k
			case opInt + cmpGe:
				v = float64(*(*int)(f)) >= t.k

			case opAbsFloat + cmpEq:
				v = math.Abs(*(*float64)(f)) == t.k
			case opAbsFloat + cmpNe:
				v = math.Abs(*(*float64)(f)) != t.k
			case opAbsFloat + cmpLt:
				v = math.Abs(*(*float64)(f)) < t.k
			case opAbsFloat + cmpLe:
				v = math.Abs(*(*float64)(f)) <= t.k
			case opAbsFloat + cmpGt:
				v = math.Abs(*(*float64)(f)) > t.k
			case opAbsFloat + cmpGe:
				v = math.Abs(*(*float64)(f)) >= t.k

			case opAbsInt + cmpEq:
				v = math.Abs(float64(*(*int)(f))) == t.k
			case opAbsInt + cmpNe:
				v = math.Abs(float64(*(*int)(f))) != t.k
			case opAbsInt + cmpLt:
				v = math.Abs(float64(*(*int)(f))) < t.k
			case opAbsInt + cmpLe:
				v = math.Abs(float64(*(*int)(f))) <= t.k
			case opAbsInt + cmpGt:
				v = math.Abs(float64(*(*int)(f))) > t.k
			case opAbsInt + cmpGe:
				v = math.Abs(float64(*(*int)(f))) >= t.k
			}
		} else {
			switch t.op {
			case opFn:
				v = t.fn(fc)
				if fc.err != nil {
					return false, i
				}
			case opNil:
				v = fc.ptrs[t.kind] == nil
			case opNotNil:
				v = fc.ptrs[t.kind] != nil
			}
		}
		if v != all {
			return v, i // false ends an &&, true ends an ||
		}
	}
	return all, len(ts)
}

// simpleTest compiles n as a test held as data, when it has one of the simple shapes.
func (c *fastCompiler) simpleTest(n ast.Node) (test, bool) {
	if t, ok := c.boolTest(n); ok {
		return t, true
	}
	x, ok := n.(*ast.BinaryNode)
	if !ok {
		return test{}, false
	}
	if _, isCmp := cmpOps[x.Operator]; !isCmp {
		return test{}, false
	}
	if t, ok := c.nilTest(x); ok {
		return t, true
	}
	return c.fieldConst(x.Operator, x.Left, x.Right)
}

// boolTest compiles `kind.field` and `!kind.field` for a bool field of a singleton fact.
func (c *fastCompiler) boolTest(n ast.Node) (test, bool) {
	op := opTrue
	if u, ok := n.(*ast.UnaryNode); ok && (u.Operator == "!" || u.Operator == "not") {
		n, op = u.Node, opFalse
	}
	m, ok := n.(*ast.MemberNode)
	if !ok || isParams(m) {
		return test{}, false
	}
	if t, ok := c.memberType(m); !ok || t != TypeBool {
		return test{}, false
	}
	kind, off, name := c.field(m)
	return test{op: op, kind: kind, off: off, name: name}, true
}

// nilTest compiles `fact == nil`, `fact != nil` and their mirrors.
func (c *fastCompiler) nilTest(x *ast.BinaryNode) (test, bool) {
	if x.Operator != "==" && x.Operator != "!=" {
		return test{}, false
	}
	lk, rk := c.kindOf(x.Left), c.kindOf(x.Right)
	id := x.Left
	switch {
	case lk == vFact && rk == vNil:
	case lk == vNil && rk == vFact:
		id = x.Right
	default:
		return test{}, false
	}
	t := test{op: opNil, kind: c.rs.kindByName[id.(*ast.IdentifierNode).Value].index}
	if x.Operator == "!=" {
		t.op = opNotNil
	}
	return t, true
}

// fieldConst compiles `field op constant` or `constant op field`, where field is a
// number field of a singleton fact or the abs of one.
func (c *fastCompiler) fieldConst(op string, l, r ast.Node) (test, bool) {
	if constant(l) && !constant(r) {
		l, r, op = r, l, mirrored[op]
	}
	fld, ok := c.numField(l)
	if !ok {
		return test{}, false
	}
	k, ok := c.constNum(r)
	if !ok {
		return test{}, false
	}
	read := opFloat
	switch {
	case fld.isInt && fld.abs:
		read = opAbsInt
	case fld.isInt:
		read = opInt
	case fld.abs:
		read = opAbsFloat
	}
	return test{op: read + cmpOps[op], kind: fld.kind, off: fld.off, k: k, name: fld.name}, true
}
