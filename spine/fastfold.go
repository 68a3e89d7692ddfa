package spine

import (
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
//   - a comparison of a fact's number field (or its abs) with a constant reads the field
//     in the comparison's own closure.

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

// chain compiles a run of && (all) or of || (!all) operators.
func (c *fastCompiler) chain(x *ast.BinaryNode, all bool) boolFn {
	var fs []boolFn
	for _, n := range chainOperands(x, all) {
		if v, ok := c.constBool(n); ok {
			if v == all {
				continue // true in an &&, false in an ||: no effect
			}
			fs = append(fs, func(*fastCtx) bool { return v }) // decides the chain
			break
		}
		f := c.boolean(n)
		if f == nil {
			return nil
		}
		fs = append(fs, f)
	}
	switch {
	case len(fs) == 0:
		return func(*fastCtx) bool { return all }
	case len(fs) == 1:
		return fs[0]
	case all:
		return func(fc *fastCtx) bool {
			for _, f := range fs {
				if !f(fc) || fc.err != nil {
					return false
				}
			}
			return true
		}
	}
	return func(fc *fastCtx) bool {
		for _, f := range fs {
			if f(fc) {
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

// Comparison operators as small integers, for a switch inside the closure.
const (
	opEq = iota
	opNe
	opLt
	opLe
	opGt
	opGe
)

var opCodes = map[string]int{"==": opEq, "!=": opNe, "<": opLt, "<=": opLe, ">": opGt, ">=": opGe}

// fieldConst compiles `field op constant` or `constant op field` into one closure, or
// returns nil when the comparison has another shape.
func (c *fastCompiler) fieldConst(op string, l, r ast.Node) boolFn {
	if constant(l) && !constant(r) {
		l, r, op = r, l, mirrored[op]
	}
	fld, ok := c.numField(l)
	if !ok {
		return nil
	}
	k, ok := c.constNum(r)
	if !ok {
		return nil
	}
	kind, off, isInt, abs, name, code := fld.kind, fld.off, fld.isInt, fld.abs, fld.name, opCodes[op]
	return func(fc *fastCtx) bool {
		p := fc.ptrs[kind]
		if p == nil {
			fc.absent(name)
			return false
		}
		var x float64
		if isInt {
			x = float64(*(*int)(unsafe.Add(p, off)))
		} else {
			x = *(*float64)(unsafe.Add(p, off))
		}
		if abs {
			x = math.Abs(x)
		}
		switch code {
		case opEq:
			return x == k
		case opNe:
			return x != k
		case opLt:
			return x < k
		case opLe:
			return x <= k
		case opGt:
			return x > k
		}
		return x >= k
	}
}
