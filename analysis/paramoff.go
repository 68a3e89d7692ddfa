package analysis

import (
	"github.com/expr-lang/expr/ast"

	"github.com/agentspine/spine/spine/cond"
)

// A rule file may ship a rule switched off by a param: one of the condition's top-level
// conjuncts compares params alone and is false with the values the file gives them
// (`params.replan_cap > 0` with replan_cap: 0). Such a rule never fires by design; the
// analysis reports it as off, naming the conjunct, instead of warning that it can never
// fire. A cell of an expectations file switched off the same way is off, not empty: it
// describes a setting the params do not select. A literal `false` is not a switch.

// RuleOff is the status of a rule a param switches off.
const RuleOff = "off"

// offBy returns the first top-level conjunct of src that compares params alone and is
// false, as expr prints it, or "" when there is none.
func (sp *space) offBy(src string) string {
	n, err := sp.rs.Condition(src)
	if err != nil || n == nil {
		return ""
	}
	return offConjunct(n)
}

func offConjunct(n *cond.Node) string {
	switch n.Op {
	case cond.OpAnd:
		if s := offConjunct(n.L); s != "" {
			return s
		}
		return offConjunct(n.R)
	case cond.OpConst:
		if !n.Value && n.Expr != nil && readsParam(n.Expr) {
			return n.Expr.String()
		}
	}
	return ""
}

func readsParam(n ast.Node) bool {
	found := false
	ast.Find(n, func(x ast.Node) bool {
		m, ok := x.(*ast.MemberNode)
		if !ok {
			return false
		}
		id, ok := m.Node.(*ast.IdentifierNode)
		found = found || (ok && id.Value == "params")
		return found
	})
	return found
}

// markOff turns the unsatisfiable rules that a param switches off into RuleOff.
func (a *analyzer) markOff(rules []RuleReport) {
	for i := range rules {
		if rules[i].Status != RuleUnsatisfiable {
			continue
		}
		if off := a.sp.offBy(a.rules[i].r.When); off != "" {
			rules[i].Status, rules[i].OffBy = RuleOff, off
		}
	}
}
