package cond

import (
	"fmt"
	"testing"

	"github.com/expr-lang/expr"
)

type sFact struct {
	X    float64  `expr:"x"`
	N    int      `expr:"n"`
	B    bool     `expr:"b"`
	M    string   `expr:"m"`
	Tags []string `expr:"tags"`
}

type params struct {
	P    float64 `expr:"p"`
	Flag bool    `expr:"flag"`
}

type env struct {
	S      *sFact   `expr:"s"`
	Items  []*sFact `expr:"items"`
	Params *params  `expr:"params"`
}

// testEnv resolves env's names: kind 0 is s, kind 1 the list items.
type testEnv struct{}

func (testEnv) Kind(name string) (int, bool, bool) {
	switch name {
	case "s":
		return 0, false, true
	case "items":
		return 1, true, true
	}
	return 0, false, false
}

func (testEnv) Field(kind int, name string) (int, Type, bool) {
	for i, f := range []struct {
		name string
		t    Type
	}{{"x", TFloat}, {"n", TInt}, {"b", TBool}, {"m", TString}, {"tags", TOther}} {
		if f.name == name {
			return i, f.t, true
		}
	}
	return 0, 0, false
}

func (testEnv) Param(name string) (any, bool) {
	switch name {
	case "p":
		return 0.5, true
	case "flag":
		return true, true
	}
	return nil, false
}

// show prints a classified condition compactly.
func show(n *Node) string {
	switch n.Op {
	case OpConst:
		return fmt.Sprint(n.Value)
	case OpNot:
		return "not(" + show(n.L) + ")"
	case OpAnd:
		return "and(" + show(n.L) + ", " + show(n.R) + ")"
	case OpOr:
		return "or(" + show(n.L) + ", " + show(n.R) + ")"
	case OpOpaque:
		return "opaque[" + n.Reason + "]"
	}
	a := n.Atom
	switch a.Test {
	case TestPresent:
		return fmt.Sprintf("present(%d)=%v", a.Kind, a.Want)
	case TestBool:
		return fmt.Sprintf("bool(%d.%d)=%v", a.Kind, a.Field, a.Want)
	case TestString:
		return fmt.Sprintf("str(%d.%d %s %q)", a.Kind, a.Field, a.Cmp, a.K.S)
	}
	k := fmt.Sprint(a.K.F)
	if a.K.T == TInt {
		k = fmt.Sprint(a.K.I) + "i"
	}
	return fmt.Sprintf("cmp(%s%d.%d %s %s)", a.Fn, a.Kind, a.Field, a.Cmp, k)
}

func TestExtract(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"s != nil && s.n > 0", "and(present(0)=true, cmp(0.1 > 0i))"},
		{"nil == s || !s.b", "or(present(0)=false, not(bool(0.2)=true))"},
		{"2 <= s.x", "cmp(0.0 >= 2i)"},
		{"abs(s.x) < params.p", "cmp(a0.0 < 0.5)"},
		{"-abs(s.n) >= -1", "cmp(a-0.1 >= -1i)"},
		{"s.x > 2 * 3.5", "cmp(0.0 > 7)"},
		{"s.x > 0.0/0.0", "cmp(0.0 > NaN)"},
		{"s.n == 9223372036854775807", "cmp(0.1 == 9223372036854775807i)"},
		{"s.n != params.p", "cmp(0.1 != 0.5)"},
		{"!s.b == params.flag", "bool(0.2)=false"},
		{`s.m != "a" and "b" == s.m`, `and(str(0.3 != "a"), str(0.3 == "b"))`},
		{"s.x > 1 || true", "true"},
		{"params.p < 1 && s.b", "and(true, bool(0.2)=true)"},
		{"s.x + 1 > 2", "opaque[compares an expression that is not a field, its negation or its abs]"},
		{"s.x > s.n", "opaque[compares two expressions that are not constants]"},
		{"len(s.tags) > 0", "opaque[compares an expression that is not a field, its negation or its abs]"},
		{"len(items) > 0 && s.b", "and(opaque[compares an expression that is not a field, its negation or its abs], bool(0.2)=true)"},
		{`s.m < "b"`, "opaque[compares a bool or string expression the matcher does not model]"},
		{`s.m in ["a", "b"]`, "opaque[uses the operator in]"},
		{"s.x > 1 ? s.b : false", "opaque[is a conditional expression]"},
		{"items == nil", "opaque[checks a list of facts against nil]"},
	} {
		prog, err := expr.Compile(c.src, expr.Env(env{}), expr.AsBool())
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		if got := show(Extract(prog.Node(), testEnv{})); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}
