package cond

import (
	"github.com/expr-lang/expr/ast"
)

// Type is the type of a fact field or a constant, as conditions compare it.
type Type uint8

// Field and constant types. Ints are Go ints (64 bits), as expr holds them.
const (
	TOther Type = iota
	TFloat
	TInt
	TBool
	TString
	TNil
)

// Env resolves the names a condition reads.
type Env interface {
	// Kind returns the index of a fact kind and whether it holds many facts.
	Kind(name string) (index int, many, ok bool)
	// Field returns the index of a kind's field and its type.
	Field(kind int, name string) (index int, t Type, ok bool)
	// Param returns a param's value: a float64, a bool or a string.
	Param(name string) (any, bool)
}

// Op is what a Node is.
type Op uint8

// Node operators.
const (
	OpConst  Op = iota // Value
	OpAtom             // Atom
	OpNot              // !L
	OpAnd              // L && R, R read only when L holds
	OpOr               // L || R, R read only when L does not hold
	OpOpaque           // a part only expr's VM can evaluate; Reason says why
)

// Node is a condition classified: constants and atoms combined by and/or/not, or an
// opaque part. Expr is the sub-tree of expr's optimised tree it stands for.
type Node struct {
	Op     Op
	Value  bool
	Atom   Atom
	L, R   *Node
	Reason string
	Expr   ast.Node
	K      ast.Node // an atom's constant operand, as written (a literal or a param)
}

// Test is what an Atom tests.
type Test uint8

// Atom tests.
const (
	TestPresent Test = iota // the singleton kind's fact exists (Want) or not (!Want)
	TestBool                // a bool field equals Want
	TestString              // a string field equals K.S (Cmp "==") or not ("!=")
	TestCompare             // Term(field) Cmp K, a number field
)

// Atom is one test of one fact field (or of a kind's presence) against a constant.
type Atom struct {
	Test  Test
	Kind  int
	Field int  // not for TestPresent
	Type  Type // the field's type: TInt or TFloat for TestCompare
	Want  bool
	// Fn is applied to the field before comparing, innermost first: '-' negates, 'a'
	// is abs. Both keep the field's type, as in expr.
	Fn  string
	Cmp string // ==, !=, <, <=, >, >=
	K   Const
}

// ReadsField reports whether evaluating the atom reads a field of its kind's fact, which
// fails when the fact does not exist.
func (a *Atom) ReadsField() bool { return a.Test != TestPresent }

// Const is a constant operand.
type Const struct {
	T Type
	F float64
	I int64
	B bool
	S string
}

// Extract classifies a condition, given as the root of expr's checked and optimised tree.
func Extract(n ast.Node, env Env) *Node {
	x := &extractor{env: env}
	return x.boolean(n)
}

// Walk calls f on n and every node below it, parents first.
func (n *Node) Walk(f func(*Node)) {
	f(n)
	if n.L != nil {
		n.L.Walk(f)
	}
	if n.R != nil {
		n.R.Walk(f)
	}
}

type extractor struct{ env Env }

func opaque(n ast.Node, reason string) *Node { return &Node{Op: OpOpaque, Reason: reason, Expr: n} }

func (x *extractor) boolean(n ast.Node) *Node {
	if c, ok := x.constant(n); ok {
		if c.T == TBool {
			return &Node{Op: OpConst, Value: c.B, Expr: n}
		}
		return opaque(n, "is not a bool")
	}
	switch e := n.(type) {
	case *ast.UnaryNode:
		if e.Operator == "!" || e.Operator == "not" {
			return &Node{Op: OpNot, L: x.boolean(e.Node), Expr: n}
		}
	case *ast.BinaryNode:
		switch e.Operator {
		case "&&", "and":
			return &Node{Op: OpAnd, L: x.boolean(e.Left), R: x.boolean(e.Right), Expr: n}
		case "||", "or":
			return &Node{Op: OpOr, L: x.boolean(e.Left), R: x.boolean(e.Right), Expr: n}
		case "==", "!=", "<", "<=", ">", ">=":
			return x.compare(e)
		}
		return opaque(n, "uses the operator "+e.Operator)
	case *ast.MemberNode:
		kind, field, t, reason := x.field(e)
		if reason != "" {
			return opaque(n, reason)
		}
		if t != TBool {
			return opaque(n, "is not a bool")
		}
		return &Node{Op: OpAtom, Atom: Atom{Test: TestBool, Kind: kind, Field: field, Type: TBool, Want: true}, Expr: n}
	case *ast.CallNode, *ast.BuiltinNode:
		return opaque(n, "calls a function")
	case *ast.ConditionalNode:
		return opaque(n, "is a conditional expression")
	}
	return opaque(n, "is not a comparison")
}

// field resolves kind.field on a singleton kind.
func (x *extractor) field(m *ast.MemberNode) (kind, field int, t Type, reason string) {
	id, ok1 := m.Node.(*ast.IdentifierNode)
	prop, ok2 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 || m.Optional || m.Method {
		return 0, 0, 0, "is not a kind.field reference"
	}
	k, many, ok := x.env.Kind(id.Value)
	if !ok {
		return 0, 0, 0, "reads " + id.Value + ", which is not a fact kind"
	}
	if many {
		return 0, 0, 0, "reads the list of " + id.Value + " facts"
	}
	f, t, ok := x.env.Field(k, prop.Value)
	if !ok {
		return 0, 0, 0, "reads an undeclared field"
	}
	if t == TOther {
		return 0, 0, 0, "reads a list of strings"
	}
	return k, f, t, ""
}

// term is ±abs(…) of a number field.
func (x *extractor) term(n ast.Node) (a Atom, ok bool) {
	switch e := n.(type) {
	case *ast.MemberNode:
		kind, field, t, reason := x.field(e)
		if reason != "" || (t != TInt && t != TFloat) {
			return a, false
		}
		return Atom{Test: TestCompare, Kind: kind, Field: field, Type: t}, true
	case *ast.UnaryNode:
		if e.Operator != "-" {
			return a, false
		}
		if a, ok = x.term(e.Node); ok {
			a.Fn += "-"
		}
		return a, ok
	case *ast.BuiltinNode:
		if e.Name != "abs" || len(e.Arguments) != 1 {
			return a, false
		}
		if a, ok = x.term(e.Arguments[0]); ok {
			a.Fn += "a"
		}
		return a, ok
	}
	return a, false
}

// mirror is the comparison that holds with the operands swapped.
var mirror = map[string]string{"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}

func (x *extractor) compare(e *ast.BinaryNode) *Node {
	op := e.Operator
	lc, lok := x.constant(e.Left)
	rc, rok := x.constant(e.Right)
	if lok && rok {
		if v, ok := compareConst(op, lc, rc); ok {
			return &Node{Op: OpConst, Value: v, Expr: e}
		}
		return opaque(e, "compares constants of different types")
	}
	left, kn := e.Left, e.Right
	if lok {
		left, kn, rc, rok, op = e.Right, e.Left, lc, true, mirror[op]
	}
	if !rok {
		return opaque(e, "compares two expressions that are not constants")
	}
	eq := op == "==" || op == "!="
	switch rc.T {
	case TNil:
		id, ok := left.(*ast.IdentifierNode)
		if !ok || !eq {
			return opaque(e, "compares with nil something other than a fact kind")
		}
		k, many, found := x.env.Kind(id.Value)
		if !found || many {
			return opaque(e, "checks a list of facts against nil")
		}
		return &Node{Op: OpAtom, Atom: Atom{Test: TestPresent, Kind: k, Want: op == "!="}, Expr: e, K: kn}
	case TInt, TFloat:
		a, ok := x.term(left)
		if !ok {
			return opaque(e, "compares an expression that is not a field, its negation or its abs")
		}
		a.Cmp, a.K = op, rc
		return &Node{Op: OpAtom, Atom: a, Expr: e, K: kn}
	case TBool, TString:
		// !field == c is field == !c.
		for u, isNot := left.(*ast.UnaryNode); isNot && rc.T == TBool && (u.Operator == "!" || u.Operator == "not"); u, isNot = left.(*ast.UnaryNode) {
			left, rc.B = u.Node, !rc.B
		}
		m, ok := left.(*ast.MemberNode)
		if !ok || !eq {
			return opaque(e, "compares a bool or string expression the matcher does not model")
		}
		kind, field, t, reason := x.field(m)
		if reason != "" || t != rc.T {
			return opaque(e, "compares a bool or string expression the matcher does not model")
		}
		if t == TBool {
			return &Node{Op: OpAtom, Atom: Atom{Test: TestBool, Kind: kind, Field: field, Type: TBool, Want: rc.B == (op == "==")}, Expr: e, K: kn}
		}
		return &Node{Op: OpAtom, Atom: Atom{Test: TestString, Kind: kind, Field: field, Type: TString, Cmp: op, K: rc}, Expr: e, K: kn}
	}
	return opaque(e, "is not a comparison")
}

// constant evaluates literals, params and signs or float arithmetic on them, as expr
// would at run time.
func (x *extractor) constant(n ast.Node) (Const, bool) {
	switch e := n.(type) {
	case *ast.IntegerNode:
		return Const{T: TInt, I: int64(e.Value)}, true
	case *ast.FloatNode:
		return Const{T: TFloat, F: e.Value}, true
	case *ast.BoolNode:
		return Const{T: TBool, B: e.Value}, true
	case *ast.StringNode:
		return Const{T: TString, S: e.Value}, true
	case *ast.NilNode:
		return Const{T: TNil}, true
	case *ast.MemberNode:
		id, ok1 := e.Node.(*ast.IdentifierNode)
		prop, ok2 := e.Property.(*ast.StringNode)
		if !ok1 || !ok2 || id.Value != "params" || e.Optional {
			return Const{}, false
		}
		if _, _, isKind := x.env.Kind("params"); isKind {
			return Const{}, false
		}
		v, ok := x.env.Param(prop.Value)
		if !ok {
			return Const{}, false
		}
		switch p := v.(type) {
		case float64:
			return Const{T: TFloat, F: p}, true
		case bool:
			return Const{T: TBool, B: p}, true
		case string:
			return Const{T: TString, S: p}, true
		}
	case *ast.UnaryNode:
		c, ok := x.constant(e.Node)
		if !ok {
			return c, false
		}
		switch {
		case e.Operator == "-" && c.T == TFloat:
			return Const{T: TFloat, F: -c.F}, true
		case e.Operator == "-" && c.T == TInt:
			return Const{T: TInt, I: -c.I}, true
		case (e.Operator == "!" || e.Operator == "not") && c.T == TBool:
			return Const{T: TBool, B: !c.B}, true
		}
	case *ast.BinaryNode:
		l, ok1 := x.constant(e.Left)
		r, ok2 := x.constant(e.Right)
		// Float arithmetic only: Go's float64 operators are IEEE 754's, as expr's are.
		// Int arithmetic on literals expr has folded already.
		if !ok1 || !ok2 || (l.T != TFloat && r.T != TFloat) || !isNum(l.T) || !isNum(r.T) {
			return Const{}, false
		}
		a, b := l.float(), r.float()
		switch e.Operator {
		case "+":
			return Const{T: TFloat, F: a + b}, true
		case "-":
			return Const{T: TFloat, F: a - b}, true
		case "*":
			return Const{T: TFloat, F: a * b}, true
		case "/":
			return Const{T: TFloat, F: a / b}, true
		}
	}
	return Const{}, false
}

func isNum(t Type) bool { return t == TInt || t == TFloat }

func (c Const) float() float64 {
	if c.T == TInt {
		return float64(c.I)
	}
	return c.F
}

// compareConst compares two constants as expr does; ok is false for the pairs the
// matcher leaves to the VM.
func compareConst(op string, l, r Const) (v, ok bool) {
	switch {
	case l.T == TInt && r.T == TInt:
		return compare(op, l.I, r.I), true
	case isNum(l.T) && isNum(r.T):
		return compare(op, l.float(), r.float()), true
	case l.T != r.T:
		return false, false
	case op != "==" && op != "!=":
		return false, false
	case l.T == TBool:
		return (l.B == r.B) == (op == "=="), true
	case l.T == TString:
		return (l.S == r.S) == (op == "=="), true
	case l.T == TNil:
		return op == "==", true
	}
	return false, false
}

// compare applies a comparison operator as Go does: with a NaN every comparison but !=
// is false.
func compare[T int64 | float64](op string, a, b T) bool {
	switch op {
	case "==":
		return a == b
	case "!=":
		return a != b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case ">":
		return a > b
	}
	return a >= b
}
