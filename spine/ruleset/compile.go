package ruleset

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/spine/cond"
)

// compileExpr compiles an expression of the rule file, n's value, against the rule
// set's environment with cfg: a rule's when (self -1) or the score or satisfied of
// objective self. Every problem is reported at its file position after prefix; who
// names the expressions in the wall clock's refusal. It returns the program (nil when
// the expression does not compile), the kinds it reads, sorted, and its specificity.
func (l *loader) compileExpr(rs *RuleSet, n *yaml.Node, cfg *conf.Config, self int, prefix, who string) (*vm.Program, []int, int) {
	src := n.Value
	pm := newScalarMap(l.lines, n)
	report := func(off int, msg string) {
		line, col := pm.at(off)
		l.errAt(line, col, "%s: %s", prefix, msg)
	}
	// The one parse of the expression: its tree is walked for names here, then checked,
	// optimised and compiled in place (checkAndCompile).
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		off, msg := exprErrorAt(src, err)
		report(off, msg)
		return nil, nil, 0
	}
	reads, ok := checkNames(rs, tree.Node, self, report)
	if !ok {
		return nil, nil, 0
	}
	specificity := conjuncts(tree.Node) // before the optimiser rewrites the tree
	prog, err := checkAndCompile(tree, cfg)
	if err != nil {
		off, msg := exprErrorAt(src, err)
		if msg == "unknown name now" {
			msg += " (" + who + " may not read the wall clock; give the time to them as a fact)"
		}
		report(off, rs.friendlyTypes(msg))
		return nil, nil, 0
	}
	return prog, reads, specificity
}

// compileWhen type-checks and compiles a rule's predicate against the rule set's
// environment and fills in the rule's specificity and the kinds it reads.
func (l *loader) compileWhen(rs *RuleSet, r *Rule, n *yaml.Node) {
	if strings.TrimSpace(n.Value) == "" {
		l.errNode(n, "when: empty predicate (write true to match always)")
		return
	}
	prog, reads, specificity := l.compileExpr(rs, n, exprConfig(rs, expr.AsBool()), -1, "when", "rules")
	if prog == nil {
		return
	}
	r.Specificity, r.reads = specificity, reads
	for _, k := range reads {
		r.Reads = append(r.Reads, rs.kinds[k].Name)
	}
	r.program = prog
	r.cond = cond.Extract(prog.Node(), condEnv{rs})
}

// conjuncts counts the top-level operands of && / and.
func conjuncts(n ast.Node) int {
	if b, ok := n.(*ast.BinaryNode); ok && (b.Operator == "&&" || b.Operator == "and") {
		return conjuncts(b.Left) + conjuncts(b.Right)
	}
	return 1
}

// exprErrorAt returns the rune offset of an expr error inside src and its bare message.
func exprErrorAt(src string, err error) (int, string) {
	fe, ok := errors.AsType[*file.Error](err)
	if !ok {
		return 0, err.Error()
	}
	off, line := 0, 1
	for i, r := range []rune(src) {
		if line == fe.Line {
			off = i
			break
		}
		if r == '\n' {
			line++
			off = i + 1
		}
	}
	return off + fe.Column, fe.Message
}

// friendlyTypes replaces the generated struct types in an expr message with the names of
// the fact kinds they stand for.
func (rs *RuleSet) friendlyTypes(msg string) string {
	if pt := rs.paramsVal.Type().Elem(); pt.NumField() > 0 {
		msg = strings.ReplaceAll(msg, "*"+pt.String(), "params")
		msg = strings.ReplaceAll(msg, pt.String(), "params")
	}
	for _, k := range rs.kinds {
		name := "fact kind " + strconv.Quote(k.Name)
		msg = strings.ReplaceAll(msg, "*"+k.typ.String(), name)
		msg = strings.ReplaceAll(msg, k.typ.String(), name)
	}
	return msg
}

func paramList(rs *RuleSet) string {
	sorted := slices.SortedFunc(slices.Values(rs.params), func(a, b Param) int { return strings.Compare(a.Name, b.Name) })
	return choices("params", sorted, func(p Param) string { return p.Name }, "the file declares no params")
}

type visitor func(ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }
