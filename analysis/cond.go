package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/ruleset"
)

// A condition becomes a formula over atoms. Each atom tests one variable (a field against
// a constant, a bool field, a kind's presence, two fields against each other); anything
// else is an opaque part whose value the analysis does not know.
type formula interface{ isFormula() }

type (
	fConst struct{ v bool }
	fAtom  struct{ a int }
	fNot   struct{ x formula }
	// fJunction is && or ||: the right side is evaluated only where the left side's
	// outcome is goOn (true for &&, false for ||), as the engine short-circuits; where
	// it is not, the left side's outcome is the junction's.
	fJunction struct {
		l, r formula
		goOn oset
	}
	fOpaque struct{ part Opaque }
)

func fAnd(l, r formula) formula { return fJunction{l, r, oT} }
func fOr(l, r formula) formula  { return fJunction{l, r, oF} }

func (fConst) isFormula()    {}
func (fAtom) isFormula()     {}
func (fNot) isFormula()      {}
func (fJunction) isFormula() {}
func (fOpaque) isFormula()   {}

// eachAtom calls visit on every atom of f, left to right.
func eachAtom(f formula, visit func(fAtom)) {
	switch x := f.(type) {
	case fAtom:
		visit(x)
	case fNot:
		eachAtom(x.x, visit)
	case fJunction:
		eachAtom(x.l, visit)
		eachAtom(x.r, visit)
	}
}

// Opaque is a part of a condition the analysis cannot model.
type Opaque struct {
	Text   string // the sub-expression, as expr prints it
	Reason string
}

func (o Opaque) String() string { return "`" + o.Text + "` (" + o.Reason + ")" }

type atom struct {
	v      int
	text   string
	test   func(rep any) bool
	opaque string // non-empty: the atom's variable is not independent, so it is treated as opaque
	truth  []bool // test on each piece of the variable, filled on first use once the pieces are cut
	cut    int    // the one piece where truth changes: -1 when it never does, -2 when more than once
}

// cval is a constant sub-expression: a literal, a param, or arithmetic on them.
type cval struct {
	kind byte // 'n' number, 'b' bool, 's' string, '0' nil
	num  float64
	b    bool
	s    string
	text string
}

// term is ±f(field), f the identity or abs, as a comparison operand.
type term struct {
	v     int
	field fieldRef
	neg   bool
	abs   bool
}

func (t term) eval(x float64) float64 {
	if t.abs {
		x = math.Abs(x)
	}
	if t.neg {
		x = -x
	}
	return x
}

// converter turns one expression into a formula, registering its variables and atoms.
type converter struct {
	sp     *space
	opaque []Opaque
}

// convert reads a condition the way the engine does: compiled by expr, classified by
// package spine/cond (see convertNode).
func (sp *space) convert(src string) (formula, []Opaque) {
	n, err := sp.rs.Condition(src)
	if err != nil {
		o := Opaque{Text: strings.TrimSpace(src), Reason: "does not compile: " + strings.SplitN(err.Error(), "\n", 2)[0]}
		return fOpaque{o}, []Opaque{o}
	}
	return sp.convertNode(n)
}

// convertNode turns a condition as package spine/cond classified it into a formula. Its
// atoms are the matcher's atoms; of the parts the matcher leaves to expr's VM the
// analysis models two more shapes, membership in a literal list and the comparison of
// two fields, and says why it cannot model the others.
func (sp *space) convertNode(n *cond.Node) (formula, []Opaque) {
	c := &converter{sp: sp}
	if n == nil {
		return c.fail(&ast.NilNode{}, "did not compile"), c.opaque
	}
	f := c.node(n)
	return f, c.opaque
}

func (c *converter) node(n *cond.Node) formula {
	switch n.Op {
	case cond.OpConst:
		return fConst{n.Value}
	case cond.OpNot:
		return fNot{c.node(n.L)}
	case cond.OpAnd:
		return fAnd(c.node(n.L), c.node(n.R))
	case cond.OpOr:
		return fOr(c.node(n.L), c.node(n.R))
	case cond.OpAtom:
		return c.atom(n)
	}
	return c.boolean(n.Expr)
}

// atom registers one of the matcher's atoms as a test of an analysis variable.
func (c *converter) atom(n *cond.Node) formula {
	a, text := n.Atom, n.Expr.String()
	k := c.sp.rs.Kinds()[a.Kind]
	if a.Test == cond.TestPresent {
		want := a.Want
		return c.sp.addAtom(c.sp.presenceVar(k.Name), text, func(rep any) bool { return rep.(bool) == want })
	}
	ref := c.sp.fieldRef(k.Name, k.Fields[a.Field])
	switch a.Test {
	case cond.TestBool:
		want := a.Want
		return c.sp.addAtom(c.sp.fieldVar(ref), text, func(rep any) bool { return rep.(bool) == want })
	case cond.TestString:
		v := c.sp.fieldVar(ref)
		c.sp.addLiteral(v, a.K.S)
		want, s := a.Cmp == "==", a.K.S
		return c.sp.addAtom(v, text, func(rep any) bool { return (rep.(string) == s) == want })
	}
	num := a.K.F
	if a.K.T == cond.TInt {
		num = float64(a.K.I)
	}
	if math.IsNaN(num) || math.IsInf(num, 0) {
		return c.fail(n.Expr, "compares with a constant that is not a finite number")
	}
	t := term{field: ref}
	for _, f := range a.Fn { // innermost first: abs(-x) is abs(x), -abs(x) negates it
		if f == 'a' {
			t.abs, t.neg = true, false
		} else {
			t.neg = !t.neg
		}
	}
	t.v = c.sp.fieldVar(ref)
	rc := cval{kind: 'n', num: num, text: n.K.String()}
	c.sp.addThresholds(t, rc)
	op := a.Cmp
	return c.sp.addAtom(t.v, text, func(rep any) bool { return compareNum(op, t.eval(rep.(float64)), num) })
}

func (c *converter) fail(n ast.Node, reason string) formula {
	o := Opaque{Text: n.String(), Reason: reason}
	c.opaque = append(c.opaque, o)
	return fOpaque{o}
}

// boolean models a part the matcher leaves to expr's VM, from expr's optimised tree.
func (c *converter) boolean(n ast.Node) formula {
	if cv, ok := c.constant(n); ok {
		if cv.kind == 'b' {
			return fConst{cv.b}
		}
		return c.fail(n, "is not a bool")
	}
	switch x := n.(type) {
	case *ast.UnaryNode:
		if x.Operator == "!" || x.Operator == "not" {
			return fNot{c.boolean(x.Node)}
		}
	case *ast.BinaryNode:
		switch x.Operator {
		case "&&", "and":
			return fAnd(c.boolean(x.Left), c.boolean(x.Right))
		case "||", "or":
			return fOr(c.boolean(x.Left), c.boolean(x.Right))
		case "==", "!=", "<", "<=", ">", ">=":
			return c.compare(x)
		case "in":
			return c.in(x)
		}
		return c.fail(n, "uses the operator "+x.Operator)
	case *ast.MemberNode:
		if ref, reason := c.field(x); reason != "" {
			return c.fail(n, reason)
		} else if ref.ftype == ruleset.TypeBool {
			v := c.sp.fieldVar(ref)
			return c.sp.addAtom(v, n.String(), func(rep any) bool { return rep.(bool) })
		}
		return c.fail(n, "is not a bool")
	case *ast.CallNode, *ast.BuiltinNode:
		return c.fail(n, "calls a function")
	case *ast.ConditionalNode:
		return c.fail(n, "is a conditional expression")
	}
	return c.fail(n, "is not a comparison the analysis models")
}

// field resolves kind.field on a singleton kind.
func (c *converter) field(m *ast.MemberNode) (fieldRef, string) {
	id, ok1 := m.Node.(*ast.IdentifierNode)
	prop, ok2 := m.Property.(*ast.StringNode)
	if !ok1 || !ok2 || m.Optional || m.Method {
		return fieldRef{}, "is not a kind.field reference"
	}
	k, ok := c.sp.rs.Kind(id.Value)
	if !ok {
		return fieldRef{}, "reads " + id.Value + ", which is not a fact kind"
	}
	if k.Many {
		return fieldRef{}, "reads the list of " + strconv.Quote(k.Name) + " facts"
	}
	f, ok := k.Field(prop.Value)
	if !ok {
		return fieldRef{}, "reads an undeclared field"
	}
	if f.Type == ruleset.TypeStrings {
		return fieldRef{}, "reads a list of strings"
	}
	return c.sp.fieldRef(k.Name, f), ""
}

func (c *converter) term(n ast.Node) (term, bool) {
	switch x := n.(type) {
	case *ast.MemberNode:
		ref, reason := c.field(x)
		if reason != "" || (ref.ftype != ruleset.TypeFloat && ref.ftype != ruleset.TypeInt) {
			return term{}, false
		}
		return term{field: ref, v: -1}, true
	case *ast.UnaryNode:
		t, ok := c.term(x.Node)
		switch {
		case !ok:
			return t, false
		case x.Operator == "-":
			t.neg = !t.neg
			return t, true
		case x.Operator == "+":
			return t, true
		}
	case *ast.BuiltinNode:
		if x.Name == "abs" && len(x.Arguments) == 1 {
			t, ok := c.term(x.Arguments[0])
			if !ok {
				return t, false
			}
			return term{field: t.field, v: -1, abs: true}, true
		}
	}
	return term{}, false
}

// why names what makes an operand unsupported: the first call, list or arithmetic in it.
func (c *converter) why(n ast.Node) string {
	reason := ""
	ast.Find(n, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.BuiltinNode:
			if x.Name != "abs" {
				reason = "calls " + x.Name + "()"
			}
		case *ast.CallNode:
			reason = "calls " + x.Callee.String() + "()"
		case *ast.MemberNode:
			if _, r := c.field(x); r != "" && r != "is not a kind.field reference" {
				reason = r
			}
		case *ast.BinaryNode:
			switch x.Operator {
			case "+", "-", "*", "/", "%", "**", "^":
				reason = "does arithmetic on a field"
			}
		case *ast.ConditionalNode:
			reason = "is a conditional expression"
		}
		return reason != ""
	})
	if reason == "" {
		reason = "compares an expression the analysis does not model"
	}
	return reason
}

func (c *converter) compare(x *ast.BinaryNode) formula {
	op := x.Operator
	lc, lok := c.constant(x.Left)
	rc, rok := c.constant(x.Right)
	if lok && rok {
		if v, ok := compareConst(op, lc, rc); ok {
			return fConst{v}
		}
		return c.fail(x, "compares constants of different types")
	}
	// Put the constant on the right.
	left := x.Left
	if lok {
		left, rc, rok = x.Right, lc, true
		op = flip(op)
	}
	if !rok {
		return c.compareFields(x, op)
	}
	text := x.String()
	switch rc.kind {
	case '0':
		id, ok := left.(*ast.IdentifierNode)
		if !ok || (op != "==" && op != "!=") {
			return c.fail(x, "compares with nil something other than a fact kind")
		}
		k, ok := c.sp.rs.Kind(id.Value)
		if !ok || k.Many {
			return c.fail(x, "checks a list of facts against nil")
		}
		v := c.sp.presenceVar(k.Name)
		want := op == "!="
		return c.sp.addAtom(v, text, func(rep any) bool { return rep.(bool) == want })
	case 'n':
		t, ok := c.term(left)
		if !ok {
			return c.fail(x, c.why(left))
		}
		t.v = c.sp.fieldVar(t.field)
		c.sp.addThresholds(t, rc)
		cst := rc.num
		return c.sp.addAtom(t.v, text, func(rep any) bool { return compareNum(op, t.eval(rep.(float64)), cst) })
	case 'b':
		m, ok := left.(*ast.MemberNode)
		if !ok || (op != "==" && op != "!=") {
			return c.fail(x, "compares a bool expression the analysis does not model")
		}
		ref, reason := c.field(m)
		if reason != "" || ref.ftype != ruleset.TypeBool {
			return c.fail(x, "compares a bool expression the analysis does not model")
		}
		want := rc.b == (op == "==")
		return c.sp.addAtom(c.sp.fieldVar(ref), text, func(rep any) bool { return rep.(bool) == want })
	case 's':
		m, ok := left.(*ast.MemberNode)
		if !ok {
			return c.fail(x, "compares a string expression the analysis does not model")
		}
		ref, reason := c.field(m)
		if reason != "" || ref.ftype != ruleset.TypeString {
			return c.fail(x, "compares a string expression the analysis does not model")
		}
		if op != "==" && op != "!=" {
			return c.fail(x, "orders strings")
		}
		v := c.sp.fieldVar(ref)
		c.sp.addLiteral(v, rc.s)
		want, s := op == "==", rc.s
		return c.sp.addAtom(v, text, func(rep any) bool { return (rep.(string) == s) == want })
	}
	return c.fail(x, "is not a comparison the analysis models")
}

// compareFields handles field op field: the sign of their difference is a variable of its own.
func (c *converter) compareFields(x *ast.BinaryNode, op string) formula {
	lm, ok1 := x.Left.(*ast.MemberNode)
	rm, ok2 := x.Right.(*ast.MemberNode)
	if !ok1 || !ok2 {
		if !ok1 {
			return c.fail(x, c.why(x.Left))
		}
		return c.fail(x, c.why(x.Right))
	}
	a, ra := c.field(lm)
	b, rb := c.field(rm)
	num := func(f fieldRef) bool { return f.ftype == ruleset.TypeFloat || f.ftype == ruleset.TypeInt }
	if ra != "" || rb != "" || !num(a) || !num(b) || a.name() == b.name() {
		return c.fail(x, "compares two fields the analysis does not model")
	}
	if a.name() > b.name() { // one variable per pair of fields, whichever way it is written
		a, b, op = b, a, flip(op)
	}
	v := c.sp.diffVar(a, b)
	return c.sp.addAtom(v, x.String(), func(rep any) bool { return compareNum(op, rep.(float64), 0) })
}

func (c *converter) in(x *ast.BinaryNode) formula {
	var items []cval
	text := x.String()
	switch list := x.Right.(type) {
	case *ast.ArrayNode:
		for _, it := range list.Nodes {
			cv, ok := c.constant(it)
			if !ok {
				return c.fail(x, "tests membership in a list of non-constants")
			}
			items = append(items, cv)
		}
	case *ast.ConstantNode:
		// expr's optimiser turns a literal list of strings or ints into a set.
		var ok bool
		if items, ok = setItems(list.Value); !ok {
			return c.fail(x, "tests membership in something other than a literal list")
		}
		texts := make([]string, len(items))
		for i, it := range items {
			texts[i] = it.text
		}
		text = x.Left.String() + " " + x.Operator + " [" + strings.Join(texts, ", ") + "]"
	default:
		return c.fail(x, "tests membership in something other than a literal list")
	}
	if m, ok := x.Left.(*ast.MemberNode); ok {
		if ref, reason := c.field(m); reason == "" && ref.ftype == ruleset.TypeString {
			set := map[string]bool{}
			v := c.sp.fieldVar(ref)
			for _, it := range items {
				if it.kind != 's' {
					return c.fail(x, "tests a string against a list of non-strings")
				}
				set[it.s] = true
				c.sp.addLiteral(v, it.s)
			}
			return c.sp.addAtom(v, text, func(rep any) bool { return set[rep.(string)] })
		}
	}
	t, ok := c.term(x.Left)
	if !ok {
		return c.fail(x, c.why(x.Left))
	}
	t.v = c.sp.fieldVar(t.field)
	var nums []float64
	for _, it := range items {
		if it.kind != 'n' {
			return c.fail(x, "tests a number against a list of non-numbers")
		}
		c.sp.addThresholds(t, it)
		nums = append(nums, it.num)
	}
	return c.sp.addAtom(t.v, text, func(rep any) bool { return slices.Contains(nums, t.eval(rep.(float64))) })
}

// setItems lists the members of a set expr's optimiser made of a literal list, sorted.
func setItems(v any) ([]cval, bool) {
	var items []cval
	switch set := v.(type) {
	case map[string]struct{}:
		for s := range set {
			items = append(items, cval{kind: 's', s: s, text: strconv.Quote(s)})
		}
		slices.SortFunc(items, func(a, b cval) int { return strings.Compare(a.s, b.s) })
	case map[int]struct{}:
		for n := range set {
			items = append(items, cval{kind: 'n', num: float64(n), text: strconv.Itoa(n)})
		}
		slices.SortFunc(items, func(a, b cval) int { return cmp.Compare(a.num, b.num) }) // whole numbers: no NaN
	default:
		return nil, false
	}
	return items, true
}

// constant folds literals, params, unary signs and arithmetic on them.
func (c *converter) constant(n ast.Node) (cval, bool) {
	switch x := n.(type) {
	case *ast.IntegerNode:
		return cval{kind: 'n', num: float64(x.Value), text: n.String()}, true
	case *ast.FloatNode:
		return cval{kind: 'n', num: x.Value, text: n.String()}, true
	case *ast.BoolNode:
		return cval{kind: 'b', b: x.Value, text: n.String()}, true
	case *ast.StringNode:
		return cval{kind: 's', s: x.Value, text: n.String()}, true
	case *ast.NilNode:
		return cval{kind: '0', text: "nil"}, true
	case *ast.MemberNode:
		id, ok1 := x.Node.(*ast.IdentifierNode)
		prop, ok2 := x.Property.(*ast.StringNode)
		if !ok1 || !ok2 || id.Value != "params" {
			return cval{}, false
		}
		p, ok := c.sp.params[prop.Value]
		if !ok {
			return cval{}, false
		}
		switch v := p.Value.(type) {
		case float64:
			return cval{kind: 'n', num: v, text: n.String()}, true
		case bool:
			return cval{kind: 'b', b: v, text: n.String()}, true
		case string:
			return cval{kind: 's', s: v, text: n.String()}, true
		}
	case *ast.UnaryNode:
		v, ok := c.constant(x.Node)
		if !ok {
			return v, false
		}
		switch {
		case x.Operator == "-" && v.kind == 'n':
			return cval{kind: 'n', num: -v.num, text: n.String()}, true
		case x.Operator == "+" && v.kind == 'n':
			return cval{kind: 'n', num: v.num, text: n.String()}, true
		case (x.Operator == "!" || x.Operator == "not") && v.kind == 'b':
			return cval{kind: 'b', b: !v.b, text: n.String()}, true
		}
	case *ast.BinaryNode:
		l, ok1 := c.constant(x.Left)
		r, ok2 := c.constant(x.Right)
		if !ok1 || !ok2 || l.kind != 'n' || r.kind != 'n' {
			return cval{}, false
		}
		var v float64
		switch x.Operator {
		case "+":
			v = l.num + r.num
		case "-":
			v = l.num - r.num
		case "*":
			v = l.num * r.num
		case "/":
			v = l.num / r.num
		default:
			return cval{}, false
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return cval{}, false
		}
		return cval{kind: 'n', num: v, text: n.String()}, true
	}
	return cval{}, false
}

func compareConst(op string, l, r cval) (bool, bool) {
	if l.kind != r.kind {
		// Only nil compares with a value of another type: it is never equal to one.
		if (op == "==" || op == "!=") && (l.kind == '0' || r.kind == '0') {
			return op == "!=", true
		}
		return false, false
	}
	switch l.kind {
	case 'n':
		return compareNum(op, l.num, r.num), true
	case 's':
		if op == "==" || op == "!=" {
			return (l.s == r.s) == (op == "=="), true
		}
	case 'b':
		if op == "==" || op == "!=" {
			return (l.b == r.b) == (op == "=="), true
		}
	case '0':
		if op == "==" || op == "!=" {
			return op == "==", true
		}
	}
	return false, false
}

func compareNum(op string, l, r float64) bool {
	switch op {
	case "==":
		return l == r
	case "!=":
		return l != r
	case "<":
		return l < r
	case "<=":
		return l <= r
	case ">":
		return l > r
	case ">=":
		return l >= r
	}
	panic(fmt.Sprintf("analysis: unknown comparison %q", op))
}

func flip(op string) string {
	switch op {
	case "<":
		return ">"
	case "<=":
		return ">="
	case ">":
		return "<"
	case ">=":
		return "<="
	}
	return op
}

// negText spells the negation of a constant's text.
func negText(t string) string {
	if strings.HasPrefix(t, "-") && !strings.ContainsAny(t[1:], " +-*/()") {
		return t[1:]
	}
	if !strings.ContainsAny(t, " +-*/()") {
		return "-" + t
	}
	return "-(" + t + ")"
}
