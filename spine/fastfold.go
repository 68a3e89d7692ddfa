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
//   - a comparison of a fact's number field (or its abs) with a constant, and a nil check
//     of a fact, are data (a test) read in that loop, not closures: a cycle over many
//     rules then walks a few compact arrays.

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
			ts = append(ts, test{code: opFn, fn: func(*fastCtx) bool { return v }}) // decides the chain
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
		ts = append(ts, test{code: opFn, fn: f})
	}
	switch {
	case len(ts) == 0:
		return func(*fastCtx) bool { return all }
	case len(ts) == 1:
		t := ts[0]
		return t.eval
	case all:
		return func(fc *fastCtx) bool {
			for i := range ts {
				if !ts[i].eval(fc) || fc.err != nil {
					return false
				}
			}
			return true
		}
	}
	return func(fc *fastCtx) bool {
		for i := range ts {
			if ts[i].eval(fc) {
				return fc.err == nil
			}
			if fc.err != nil {
				return false
			}
		}
		return false
	}
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

// Test codes: a comparison of a number field with a constant, a nil check, or a closure.
const (
	opEq = iota
	opNe
	opLt
	opLe
	opGt
	opGe
	opNil
	opNotNil
	opFn
)

var opCodes = map[string]int{"==": opEq, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

// test is one operand of a chain. The commonest shapes (a number field, or its abs,
// against a constant; a singleton fact against nil) are data, evaluated in place;
// anything else is a closure.
type test struct {
	code  int
	kind  int     // the singleton kind read
	off   uintptr // the field's offset in the kind's payload
	isInt bool    // the field is an int (else a float)
	abs   bool    // compare abs(field)
	k     float64 // the constant
	name  string  // kind.field, for the error when the fact is absent
	fn    boolFn  // opFn
}

func (t *test) eval(fc *fastCtx) bool {
	switch t.code {
	case opFn:
		return t.fn(fc)
	case opNil:
		return fc.ptrs[t.kind] == nil
	case opNotNil:
		return fc.ptrs[t.kind] != nil
	}
	p := fc.ptrs[t.kind]
	if p == nil {
		fc.absent(t.name)
		return false
	}
	var x float64
	if t.isInt {
		x = float64(*(*int)(unsafe.Add(p, t.off)))
	} else {
		x = *(*float64)(unsafe.Add(p, t.off))
	}
	if t.abs {
		x = math.Abs(x)
	}
	switch t.code {
	case opEq:
		return x == t.k
	case opNe:
		return x != t.k
	case opLt:
		return x < t.k
	case opLe:
		return x <= t.k
	case opGt:
		return x > t.k
	}
	return x >= t.k
}

// simpleTest compiles n as a test held as data, when it has one of the simple shapes.
func (c *fastCompiler) simpleTest(n ast.Node) (test, bool) {
	x, ok := n.(*ast.BinaryNode)
	if !ok {
		return test{}, false
	}
	if _, isCmp := opCodes[x.Operator]; !isCmp {
		return test{}, false
	}
	if t, ok := c.nilTest(x); ok {
		return t, true
	}
	return c.fieldConst(x.Operator, x.Left, x.Right)
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
	t := test{code: opNil, kind: c.rs.kindByName[id.(*ast.IdentifierNode).Value].index}
	if x.Operator == "!=" {
		t.code = opNotNil
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
	return test{code: opCodes[op], kind: fld.kind, off: fld.off, isInt: fld.isInt, abs: fld.abs, k: k, name: fld.name}, true
}
