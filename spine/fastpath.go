package spine

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/expr-lang/expr/ast"
)

// The fast path compiles the common predicate shapes — comparisons and arithmetic over
// scalar fact fields, params and literals, combined with && / || / !, nil checks on
// singleton kinds, and abs() — into typed Go closures that read fact fields in place.
// They allocate nothing and cost a few nanoseconds per node, where the expr VM boxes
// every value it reads. Anything else (lists, strings functions, closures, `in`, …) is
// left to the expr VM. Both paths give the same results; fastpath_test.go checks it on
// random facts.
//
// Semantics kept from expr: && and || short-circuit; reading a field of an absent fact is
// an error; / always divides as floats.

// maxExactInt bounds the integers a float64 holds exactly; int fact fields never exceed it.
const maxExactInt = 1 << 53

// fastEval is one compiled predicate; it reports an error through fc.
type fastEval func(fc *fastCtx) bool

// fastCtx is the evaluation state: where to read facts and the first error.
type fastCtx struct {
	ptrs []unsafe.Pointer // current payload of each singleton kind, nil when absent
	err  error
}

type (
	numFn  func(fc *fastCtx) float64
	boolFn func(fc *fastCtx) bool
	strFn  func(fc *fastCtx) string
)

// fastCompiler turns an AST into closures; ok turns false at the first unsupported node.
type fastCompiler struct {
	rs *RuleSet
	ok bool
	// The run of tests compiled last, and the node it computes.
	lastRun  *testRun
	lastNode ast.Node
}

// compileFast returns the closure form of a predicate, or nil when its shape is not
// supported. When the whole predicate is a run of tests, it returns that run too: a
// session evaluates it without the call through the closure.
func compileFast(rs *RuleSet, n ast.Node) (fastEval, *testRun) {
	c := &fastCompiler{rs: rs, ok: true}
	f := c.boolean(n)
	if !c.ok || f == nil {
		return nil, nil
	}
	if c.lastNode == n {
		return fastEval(f), c.lastRun
	}
	return fastEval(f), nil
}

type valueKind int

const (
	vUnsupported valueKind = iota
	vNum
	vBool
	vStr
	vNil
	vFact // a singleton fact kind itself, only usable in nil checks
)

// kindOf infers the static type of a node, without compiling it.
func (c *fastCompiler) kindOf(n ast.Node) valueKind {
	switch x := n.(type) {
	case *ast.IntegerNode, *ast.FloatNode:
		return vNum
	case *ast.BoolNode:
		return vBool
	case *ast.StringNode:
		return vStr
	case *ast.NilNode:
		return vNil
	case *ast.IdentifierNode:
		if k, ok := c.rs.kindByName[x.Value]; ok && !k.Many {
			return vFact
		}
	case *ast.MemberNode:
		if t, ok := c.memberType(x); ok {
			switch t {
			case TypeFloat, TypeInt:
				return vNum
			case TypeBool:
				return vBool
			case TypeString:
				return vStr
			}
		}
	case *ast.UnaryNode:
		switch x.Operator {
		case "!", "not":
			return vBool
		case "-", "+":
			return vNum
		}
	case *ast.BinaryNode:
		switch x.Operator {
		case "&&", "and", "||", "or", "==", "!=", "<", "<=", ">", ">=":
			return vBool
		case "+", "-", "*", "/":
			return vNum
		}
	case *ast.BuiltinNode:
		if x.Name == "abs" && len(x.Arguments) == 1 {
			return vNum
		}
	}
	return vUnsupported
}

// memberType resolves kind.field or params.name to its declared type.
func (c *fastCompiler) memberType(m *ast.MemberNode) (FieldType, bool) {
	id, ok1 := m.Node.(*ast.IdentifierNode)
	prop, ok2 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 || m.Optional {
		return "", false
	}
	if id.Value == "params" {
		p, ok := c.rs.paramByName[prop.Value]
		if !ok {
			return "", false
		}
		return p.Type, true
	}
	k, ok := c.rs.kindByName[id.Value]
	if !ok || k.Many {
		return "", false
	}
	f, ok := k.Field(prop.Value)
	return f.Type, ok
}

func (c *fastCompiler) fail() { c.ok = false }

// boolean compiles a boolean node. A node that reads no fact is evaluated here, once.
func (c *fastCompiler) boolean(n ast.Node) boolFn {
	if !c.ok {
		return nil
	}
	if v, ok := c.constBool(n); ok {
		return func(*fastCtx) bool { return v }
	}
	if !c.ok {
		return nil
	}
	return c.booleanNode(n)
}

func (c *fastCompiler) booleanNode(n ast.Node) boolFn {
	switch x := n.(type) {
	case *ast.BoolNode:
		v := x.Value
		return func(*fastCtx) bool { return v }
	case *ast.MemberNode:
		if t, ok := c.memberType(x); !ok || t != TypeBool {
			break
		}
		if isParams(x) {
			v := c.rs.paramByName[x.Property.(*ast.StringNode).Value].Value.(bool)
			return func(*fastCtx) bool { return v }
		}
		kind, off, name := c.field(x)
		return func(fc *fastCtx) bool {
			p := fc.ptrs[kind]
			if p == nil {
				fc.absent(name)
				return false
			}
			return *(*bool)(unsafe.Add(p, off))
		}
	case *ast.UnaryNode:
		if x.Operator == "!" || x.Operator == "not" {
			f := c.boolean(x.Node)
			if f == nil {
				break
			}
			return func(fc *fastCtx) bool { return !f(fc) }
		}
	case *ast.BinaryNode:
		return c.binaryBool(x)
	}
	c.fail()
	return nil
}

func (c *fastCompiler) binaryBool(x *ast.BinaryNode) boolFn {
	switch x.Operator {
	case "&&", "and":
		return c.chain(x, true)
	case "||", "or":
		return c.chain(x, false)
	case "==", "!=", "<", "<=", ">", ">=":
	default:
		c.fail()
		return nil
	}
	lk, rk := c.kindOf(x.Left), c.kindOf(x.Right)
	neg := x.Operator == "!="
	switch {
	case lk == vNum && rk == vNum:
		if t, ok := c.fieldConst(x.Operator, x.Left, x.Right); ok {
			return c.run(x, []test{t}, true)
		}
		l, r := c.number(x.Left), c.number(x.Right)
		if l == nil || r == nil {
			return nil
		}
		return compareNum(x.Operator, l, r)
	case (x.Operator == "==" || neg) && lk == vBool && rk == vBool:
		l, r := c.boolean(x.Left), c.boolean(x.Right)
		if l == nil || r == nil {
			return nil
		}
		return func(fc *fastCtx) bool { return (l(fc) == r(fc)) != neg }
	case (x.Operator == "==" || neg) && lk == vStr && rk == vStr:
		l, r := c.str(x.Left), c.str(x.Right)
		if l == nil || r == nil {
			return nil
		}
		return func(fc *fastCtx) bool { return (l(fc) == r(fc)) != neg }
	case (x.Operator == "==" || neg) && (lk == vFact && rk == vNil || lk == vNil && rk == vFact):
		id := x.Left
		if lk == vNil {
			id = x.Right
		}
		kind := c.rs.kindByName[id.(*ast.IdentifierNode).Value].index
		return func(fc *fastCtx) bool { return (fc.ptrs[kind] == nil) != neg }
	}
	c.fail()
	return nil
}

func compareNum(op string, l, r numFn) boolFn {
	switch op {
	case "==":
		return func(fc *fastCtx) bool { return l(fc) == r(fc) }
	case "!=":
		return func(fc *fastCtx) bool { return l(fc) != r(fc) }
	case "<":
		return func(fc *fastCtx) bool { return l(fc) < r(fc) }
	case "<=":
		return func(fc *fastCtx) bool { return l(fc) <= r(fc) }
	case ">":
		return func(fc *fastCtx) bool { return l(fc) > r(fc) }
	}
	return func(fc *fastCtx) bool { return l(fc) >= r(fc) }
}

// number compiles a numeric node. A node that reads no fact is evaluated here, once.
func (c *fastCompiler) number(n ast.Node) numFn {
	if !c.ok {
		return nil
	}
	if v, ok := c.constNum(n); ok {
		return func(*fastCtx) float64 { return v }
	}
	if !c.ok {
		return nil
	}
	return c.numberNode(n)
}

func (c *fastCompiler) numberNode(n ast.Node) numFn {
	switch x := n.(type) {
	case *ast.IntegerNode:
		if x.Value > maxExactInt || x.Value < -maxExactInt {
			break // not exact as a float64
		}
		v := float64(x.Value)
		return func(*fastCtx) float64 { return v }
	case *ast.FloatNode:
		v := x.Value
		return func(*fastCtx) float64 { return v }
	case *ast.MemberNode:
		t, ok := c.memberType(x)
		if !ok || (t != TypeFloat && t != TypeInt) {
			break
		}
		if isParams(x) {
			v := c.rs.paramByName[x.Property.(*ast.StringNode).Value].Value.(float64)
			return func(*fastCtx) float64 { return v }
		}
		kind, off, name := c.field(x)
		if t == TypeInt {
			return func(fc *fastCtx) float64 {
				p := fc.ptrs[kind]
				if p == nil {
					fc.absent(name)
					return 0
				}
				return float64(*(*int)(unsafe.Add(p, off)))
			}
		}
		return func(fc *fastCtx) float64 {
			p := fc.ptrs[kind]
			if p == nil {
				fc.absent(name)
				return 0
			}
			return *(*float64)(unsafe.Add(p, off))
		}
	case *ast.UnaryNode:
		f := c.number(x.Node)
		if f == nil {
			break
		}
		switch x.Operator {
		case "-":
			return func(fc *fastCtx) float64 { return -f(fc) }
		case "+":
			return f
		}
	case *ast.BuiltinNode:
		if x.Name != "abs" || len(x.Arguments) != 1 {
			break
		}
		f := c.number(x.Arguments[0])
		if f == nil {
			break
		}
		return func(fc *fastCtx) float64 { return math.Abs(f(fc)) }
	case *ast.BinaryNode:
		if c.isInt(x.Left) && c.isInt(x.Right) && x.Operator != "/" {
			// expr does int-with-int arithmetic in int64, which wraps where floats
			// would round; leave it to the VM. Int fields are bounded by 2^53, so
			// comparisons and mixed arithmetic are exact.
			break
		}
		l, r := c.number(x.Left), c.number(x.Right)
		if l == nil || r == nil {
			break
		}
		switch x.Operator {
		case "+":
			return func(fc *fastCtx) float64 { return l(fc) + r(fc) }
		case "-":
			return func(fc *fastCtx) float64 { return l(fc) - r(fc) }
		case "*":
			return func(fc *fastCtx) float64 { return l(fc) * r(fc) }
		case "/":
			return func(fc *fastCtx) float64 { return l(fc) / r(fc) }
		}
	}
	c.fail()
	return nil
}

func (c *fastCompiler) isInt(n ast.Node) bool {
	switch x := n.(type) {
	case *ast.IntegerNode:
		return true
	case *ast.MemberNode:
		t, ok := c.memberType(x)
		return ok && t == TypeInt
	case *ast.UnaryNode:
		return c.isInt(x.Node)
	case *ast.BuiltinNode:
		return x.Name == "abs" && len(x.Arguments) == 1 && c.isInt(x.Arguments[0])
	case *ast.BinaryNode:
		return x.Operator != "/" && c.isInt(x.Left) && c.isInt(x.Right)
	}
	return false
}

func (c *fastCompiler) str(n ast.Node) strFn {
	if !c.ok {
		return nil
	}
	switch x := n.(type) {
	case *ast.StringNode:
		v := x.Value
		return func(*fastCtx) string { return v }
	case *ast.MemberNode:
		if t, ok := c.memberType(x); !ok || t != TypeString {
			break
		}
		if isParams(x) {
			v := c.rs.paramByName[x.Property.(*ast.StringNode).Value].Value.(string)
			return func(*fastCtx) string { return v }
		}
		kind, off, name := c.field(x)
		return func(fc *fastCtx) string {
			p := fc.ptrs[kind]
			if p == nil {
				fc.absent(name)
				return ""
			}
			return *(*string)(unsafe.Add(p, off))
		}
	}
	c.fail()
	return nil
}

// field resolves kind.field to the kind's index and the field's offset in its payload.
func (c *fastCompiler) field(m *ast.MemberNode) (kind int, off uintptr, name string) {
	k := c.rs.kindByName[m.Node.(*ast.IdentifierNode).Value]
	prop := m.Property.(*ast.StringNode).Value
	return k.index, k.typ.Field(k.fieldIx[prop]).Offset, k.Name + "." + prop
}

func isParams(m *ast.MemberNode) bool {
	id, ok := m.Node.(*ast.IdentifierNode)
	return ok && id.Value == "params"
}

// absent records reading a field of a fact that does not exist.
func (fc *fastCtx) absent(name string) {
	if fc.err == nil {
		fc.err = fmt.Errorf("cannot read %s: no such fact", name)
	}
}
