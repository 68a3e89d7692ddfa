package ruleset

import (
	"errors"
	"sort"
	"strconv"
	"strings"

	"github.com/agentspine/spine/spine/cond"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"
)

// compileWhen type-checks and compiles a rule's predicate against the rule set's
// environment and fills in the rule's specificity and the kinds it reads.
func (l *loader) compileWhen(rs *RuleSet, r *Rule, n *yaml.Node) {
	src := n.Value
	pm := newScalarMap(l.lines, n)
	report := func(off int, msg string) {
		line, col := pm.at(off)
		l.errAt(line, col, "when: %s", msg)
	}
	if strings.TrimSpace(src) == "" {
		l.errNode(n, "when: empty predicate (write true to match always)")
		return
	}
	// The one parse of the predicate: its tree is walked for names here, then checked,
	// optimised and compiled in place (checkAndCompile).
	cfg := whenConfig(rs)
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		off, msg := exprErrorAt(src, err)
		report(off, msg)
		return
	}
	reads := map[int]bool{}
	ok := checkFactRefs(rs, tree.Node, reads, report)
	// objectives.NAME.score reads the kinds NAME's expressions read.
	objReads, objOK := objectiveRefs(rs, tree.Node, -1, report)
	if !ok || !objOK {
		return
	}
	for _, k := range objReads {
		reads[k] = true
	}
	r.Specificity = conjuncts(tree.Node)
	for i := range rs.kinds {
		if reads[i] {
			r.reads = append(r.reads, i)
			r.Reads = append(r.Reads, rs.kinds[i].Name)
		}
	}
	sort.Ints(r.reads)
	prog, err := checkAndCompile(tree, cfg)
	if err != nil {
		off, msg := exprErrorAt(src, err)
		if msg == "unknown name now" {
			msg += " (rules may not read the wall clock; give the time to them as a fact)"
		}
		report(off, rs.friendlyTypes(msg))
		return
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
	var fe *file.Error
	if !errors.As(err, &fe) {
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
	if len(rs.params) == 0 {
		return " (the file declares no params)"
	}
	names := make([]string, len(rs.params))
	for i, p := range rs.params {
		names[i] = p.Name
	}
	sort.Strings(names)
	return " (params: " + strings.Join(names, ", ") + ")"
}

type visitor func(ast.Node)

func (v visitor) Visit(n *ast.Node) { v(*n) }
