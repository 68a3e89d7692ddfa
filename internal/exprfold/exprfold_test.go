package exprfold

import (
	"testing"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/parser"
)

// fact is a fact kind as the engine's environment declares it: a pointer that is nil
// when the fact is absent.
type fact struct {
	A float64 `expr:"a"`
	B bool    `expr:"b"`
	C bool    `expr:"c"`
}

type env struct {
	T *fact `expr:"t"`
}

// TestBoolMatchesExpr: every expression Bool folds, expr compiles to the same constant,
// so that it runs although the fact is absent; every one Bool leaves alone fails on
// expr's VM for want of the fact.
func TestBoolMatchesExpr(t *testing.T) {
	for _, tc := range []struct {
		src    string
		folds  bool
		result bool
	}{
		{"true", true, true},
		{"!false", true, true},
		{"not true", true, false},
		{"t.a > 0 || true", true, true},
		{"true or t.a > 0", true, true},
		{"t.a > 0 && false", true, false},
		{"(t.a > 0 && t.b) && (false && t.c)", true, false},
		{"!(t.a > 0 || true)", true, false},
		{"t.a > 0 || (true && false)", false, false},
		{"t.a > 0 || 1 < 2", false, false},
		{"t.a > 0 && true", false, false},
	} {
		tree, err := parser.Parse(tc.src)
		if err != nil {
			t.Fatal(err)
		}
		v, ok := Bool(tree.Node)
		if ok != tc.folds || v != tc.result {
			t.Errorf("Bool(%s) = %v, %v; want %v, %v", tc.src, v, ok, tc.result, tc.folds)
		}
		prog, err := expr.Compile(tc.src, expr.Env(env{}))
		if err != nil {
			t.Fatal(err)
		}
		out, err := expr.Run(prog, env{})
		if tc.folds && (err != nil || out != tc.result) {
			t.Errorf("expr ran %s to %v, %v; Bool says it folds to %v", tc.src, out, err, tc.result)
		}
		if !tc.folds && err == nil {
			t.Errorf("expr ran %s to %v without t; Bool says it reads t", tc.src, out)
		}
	}
}
