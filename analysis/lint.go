package analysis

import (
	"fmt"
	"sort"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
)

// Warning is a finding that does not stop a rule set from loading.
type Warning struct {
	File string
	Line int
	Code string // WarnUnusedParam, WarnShadowed, WarnUnsatisfiable or WarnNotAnalysable
	Msg  string
}

// Warning codes.
const (
	WarnUnusedParam   = "unused-param"
	WarnShadowed      = "shadowed"
	WarnUnsatisfiable = "unsatisfiable"
	WarnNotAnalysable = "not-analysable"
)

func (w Warning) String() string { return fmt.Sprintf("%s:%d: warning: %s", w.File, w.Line, w.Msg) }

func (a *analyzer) warnings(rep *Report, hostParams []string, withDomains bool) []Warning {
	file := a.rs.Path()
	var out []Warning
	used := map[string]bool{}
	for _, h := range hostParams {
		used[h] = true
	}
	for _, ri := range a.rules {
		for _, p := range paramsRead(ri.r.When) {
			used[p] = true
		}
	}
	// A param an objective's score or satisfied reads is used: it shapes what the
	// conflict_set records and what rules reading the objective see.
	for _, o := range a.rs.Objectives() {
		for _, src := range []string{o.Score, o.Satisfied} {
			for _, p := range paramsRead(src) {
				used[p] = true
			}
		}
	}
	for _, p := range a.rs.Params() {
		if !used[p.Name] {
			out = append(out, Warning{File: file, Line: p.Line, Code: WarnUnusedParam,
				Msg: fmt.Sprintf("param %q is not read by any rule", p.Name)})
		}
	}
	within := ""
	if withDomains {
		within = " within the declared domains"
	}
	for _, rr := range rep.Rules {
		if len(rr.Opaque) > 0 {
			parts := make([]string, len(rr.Opaque))
			for k, o := range rr.Opaque {
				parts[k] = o.String()
			}
			msg := fmt.Sprintf("rule %q: cannot analyse %s", rr.Name, strings.Join(parts, ", "))
			switch rr.Status {
			case RuleUnknown:
				msg += "; whether it can fire is not decided"
			case RuleUnchecked:
				msg += "; whether it can fire was not checked"
			default:
				msg += "; regions where it matters are reported as not decided"
			}
			out = append(out, Warning{File: file, Line: rr.Line, Code: WarnNotAnalysable, Msg: msg})
		}
		switch rr.Status {
		case RuleUnsatisfiable:
			out = append(out, Warning{File: file, Line: rr.Line, Code: WarnUnsatisfiable,
				Msg: fmt.Sprintf("rule %q can never fire: its condition is never true%s", rr.Name, within)})
		case RuleShadowed:
			covers := make([]string, len(rr.ShadowedBy))
			for k, n := range rr.ShadowedBy {
				r := a.rules[a.index[n]].r
				covers[k] = fmt.Sprintf("%q (line %d, salience %d)", n, r.Line, r.Salience)
			}
			lead := "wherever its condition holds" + within + ", "
			if len(covers) > 1 {
				lead += "one of "
			}
			out = append(out, Warning{File: file, Line: rr.Line, Code: WarnShadowed,
				Msg: fmt.Sprintf("rule %q can never fire: %s%s fires first", rr.Name, lead, strings.Join(covers, ", "))})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// paramsRead lists the params a condition reads.
func paramsRead(src string) []string {
	tree, err := parser.Parse(src)
	if err != nil {
		return nil
	}
	var out []string
	ast.Find(tree.Node, func(n ast.Node) bool {
		if m, ok := n.(*ast.MemberNode); ok {
			id, ok1 := m.Node.(*ast.IdentifierNode)
			prop, ok2 := m.Property.(*ast.StringNode)
			if ok1 && ok2 && id.Value == "params" {
				out = append(out, prop.Value)
			}
		}
		return false
	})
	return out
}
