// Package exprfold says which boolean expressions expr's optimizer folds to a constant
// before they run: true and false, their negation, and an and/or that one constant
// operand decides ("x || true", "false && x"). Such an expression never reads its other
// operands on expr's VM, so the engine's compiled predicates and the rule analysis must
// not read them either: reading a field of an absent fact there would be an error the
// VM never meets.
//
// It owns that one rule of expr's semantics and nothing else. It must not fold what
// expr does not (comparisons, params): those are read at run time, left to right.
package exprfold

import "github.com/expr-lang/expr/ast"

// Bool reports the constant n folds to, and whether it folds to one.
func Bool(n ast.Node) (v, ok bool) {
	switch x := n.(type) {
	case *ast.BoolNode:
		return x.Value, true
	case *ast.UnaryNode:
		if x.Operator == "!" || x.Operator == "not" {
			v, ok := Bool(x.Node)
			return !v, ok
		}
	case *ast.BinaryNode:
		l, lok := Bool(x.Left)
		r, rok := Bool(x.Right)
		switch x.Operator {
		case "&&", "and":
			switch {
			case lok && !l || rok && !r:
				return false, true
			case lok && rok:
				return true, true
			}
		case "||", "or":
			switch {
			case lok && l || rok && r:
				return true, true
			case lok && rok:
				return false, true
			}
		}
	}
	return false, false
}
