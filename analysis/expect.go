package analysis

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/parser"
	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/internal/yamlnode"
	"github.com/agentspine/spine/spine/ruleset"
)

// Expectations are decision tables a rule set must reproduce: each cell is a condition
// over the signals and the objective (or rule) that must win wherever it holds. A file
// holds them as
//
//	tables:
//	  - name: macro-states
//	    given: signals.round > 0          # optional, conjoined to every cell
//	    cells:
//	      - {name: abandon, when: 'signals.omega >= params.theta', objective: abandon}
type Expectations struct {
	File   string
	Tables []ExpectTable

	src []byte
}

// ExpectTable is one table of cells sharing a given condition.
type ExpectTable struct {
	Name  string
	Given string
	Line  int
	Cells []ExpectCell
}

// ExpectCell is one cell: where When holds, Objective (or Rule) must win.
type ExpectCell struct {
	Name      string
	When      string
	Objective string
	Rule      string
	Line, Col int
}

// CellResult is how one cell fared.
type CellResult struct {
	Table, Cell string
	Line        int
	Expected    string // "objective X" or "rule X"
	Regions     int    // parts of the partition inside the cell, each checked by the engine
	Failures    []CellFailure
	Empty       bool   // no input within the domains satisfies the cell
	Off         string // a conjunct over params alone that is false: the cell is not checked
}

// OK reports whether the cell holds, or is off (see RuleOff).
func (c CellResult) OK() bool { return c.Off != "" || (len(c.Failures) == 0 && !c.Empty) }

// CellTally counts the cells that hold, those checked (all but the off ones) and those off.
func CellTally(cells []CellResult) (hold, checked, off int) {
	for _, c := range cells {
		switch {
		case c.Off != "":
			off++
		case c.OK():
			hold++
			checked++
		default:
			checked++
		}
	}
	return hold, checked, off
}

// CellFailure is a part of a cell where something else than the expected outcome wins.
type CellFailure struct {
	Condition string
	Got       string // what the engine fired on the witness: "rule → objective", or "no rule"
	Undecided []string
	Witness   Witness
}

// LoadExpectationsFile reads and parses an expectations file.
func LoadExpectationsFile(path string) (*Expectations, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseExpectations(path, src)
}

// ParseExpectations parses an expectations file. On failure the error is a ruleset.LoadErrors.
func ParseExpectations(name string, src []byte) (x *Expectations, err error) {
	l := newErrList(name, src)
	defer func() {
		if r := recover(); r != nil {
			x, err = nil, ruleset.LoadErrors{{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while reading expectations: %v", r)}}
		}
	}()
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		l.add(yamlErrLine(err), 1, "YAML syntax: %s", yamlErrMsg(err))
		return nil, l.err()
	}
	x = &Expectations{File: name, src: src}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		l.add(1, 1, "empty expectations file: expected a mapping with tables")
		return nil, l.err()
	}
	root := yamlnode.Resolve(doc.Content[0])
	keys := mapping(l, root, "expectations file", []string{"tables"}, []string{"tables"})
	if keys == nil {
		return nil, l.err()
	}
	tables := keys["tables"]
	if tables != nil && (tables.Kind != yaml.SequenceNode || len(tables.Content) == 0) {
		l.add(tables.Line, tables.Column, "tables: expected a non-empty list of tables, got %s", yamlnode.Describe(tables))
		return nil, l.err()
	}
	if tables != nil {
		for _, tn := range tables.Content {
			tn = yamlnode.Resolve(tn)
			tk := mapping(l, tn, "table", []string{"name", "given", "cells"}, []string{"name", "cells"})
			if tk == nil {
				continue
			}
			t := ExpectTable{Line: tn.Line}
			t.Name, _ = scalar(l, tk["name"], "table name")
			if g := tk["given"]; g != nil {
				t.Given, _ = scalar(l, g, "given")
			}
			cells := tk["cells"]
			if cells != nil && (cells.Kind != yaml.SequenceNode || len(cells.Content) == 0) {
				l.add(cells.Line, cells.Column, "table %q: cells: expected a non-empty list, got %s", t.Name, yamlnode.Describe(cells))
				continue
			}
			if cells == nil {
				continue
			}
			for _, cn := range cells.Content {
				cn = yamlnode.Resolve(cn)
				ck := mapping(l, cn, "cell", []string{"name", "when", "objective", "rule"}, []string{"name", "when"})
				if ck == nil {
					continue
				}
				c := ExpectCell{Line: cn.Line, Col: cn.Column}
				c.Name, _ = scalar(l, ck["name"], "cell name")
				c.When, _ = scalar(l, ck["when"], "when")
				if o := ck["objective"]; o != nil {
					c.Objective, _ = scalar(l, o, "objective")
				}
				if r := ck["rule"]; r != nil {
					c.Rule, _ = scalar(l, r, "rule")
				}
				if (c.Objective == "") == (c.Rule == "") {
					l.add(cn.Line, cn.Column, "cell %q: give either objective or rule", c.Name)
					continue
				}
				t.Cells = append(t.Cells, c)
			}
			x.Tables = append(x.Tables, t)
		}
	}
	if err := l.err(); err != nil {
		return nil, err
	}
	return x, nil
}

// mapping checks a mapping node's keys and returns their value nodes, or nil when the node
// is not a mapping.
func mapping(l *errList, n *yaml.Node, what string, allowed, required []string) map[string]*yaml.Node {
	if n.Kind != yaml.MappingNode {
		l.add(n.Line, n.Column, "%s: expected a mapping, got %s", what, yamlnode.Describe(n))
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlnode.Resolve(n.Content[i+1])
		known := false
		for _, a := range allowed {
			known = known || a == k.Value
		}
		switch {
		case !known:
			l.add(k.Line, k.Column, "unknown key %q in %s (expected one of: %s)", k.Value, what, strings.Join(allowed, ", "))
		case out[k.Value] != nil:
			l.add(k.Line, k.Column, "%s: key %q is given twice", what, k.Value)
		default:
			out[k.Value] = v
		}
	}
	for _, r := range required {
		if out[r] == nil {
			l.add(n.Line, n.Column, "%s is missing required key %q", what, r)
		}
	}
	return out
}

func scalar(l *errList, n *yaml.Node, what string) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" || n.Value == "" {
		l.add(n.Line, n.Column, "%s: expected a non-empty string, got %s", what, yamlnode.Describe(n))
		return "", false
	}
	return n.Value, true
}

type cell struct {
	table, name string
	line        int
	src         string // given && when
	off         string // a conjunct over params alone that is false
	f           formula
	objective   string
	rule        string
}

// bind checks the cells against a rule set and converts their conditions, which must be
// fully analysable.
func (x *Expectations) bind(rs *ruleset.RuleSet, sp *space) ([]*cell, error) {
	l := newErrList(x.File, x.src)
	var out []*cell
	for _, t := range x.Tables {
		for _, c := range t.Cells {
			src := c.When
			if t.Given != "" {
				src = "(" + t.Given + ") && (" + c.When + ")"
			}
			where := fmt.Sprintf("table %q, cell %q", t.Name, c.Name)
			if msg := checkNames(rs, src); msg != "" {
				l.add(c.Line, c.Col, "%s: %s", where, msg)
				continue
			}
			if c.Objective != "" {
				if _, ok := rs.Objective(c.Objective); !ok {
					l.add(c.Line, c.Col, "%s: %q is not a declared objective", where, c.Objective)
					continue
				}
			}
			if c.Rule != "" && ruleNamed(rs, c.Rule) == nil {
				l.add(c.Line, c.Col, "%s: no rule %q in %s", where, c.Rule, rs.Path())
				continue
			}
			f, opaque := sp.convert(src)
			if len(opaque) > 0 {
				l.add(c.Line, c.Col, "%s: cannot analyse %s", where, opaque[0])
				continue
			}
			out = append(out, &cell{table: t.Name, name: c.Name, line: c.Line, src: src, off: sp.offBy(src), f: f, objective: c.Objective, rule: c.Rule})
		}
	}
	if err := l.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkNames reports the first undeclared param, kind or field a condition reads.
func checkNames(rs *ruleset.RuleSet, src string) string {
	tree, err := parser.Parse(src)
	if err != nil {
		return "does not parse: " + strings.SplitN(err.Error(), "\n", 2)[0]
	}
	msg := ""
	ast.Find(tree.Node, func(n ast.Node) bool {
		m, ok := n.(*ast.MemberNode)
		if !ok {
			return false
		}
		id, ok1 := m.Node.(*ast.IdentifierNode)
		prop, ok2 := m.Property.(*ast.StringNode)
		if !ok1 || !ok2 {
			return false
		}
		if id.Value == "params" {
			if _, ok := rs.Param(prop.Value); !ok {
				msg = "unknown param " + strconv.Quote(prop.Value)
			}
		} else if k, ok := rs.Kind(id.Value); !ok {
			msg = "unknown fact kind " + strconv.Quote(id.Value)
		} else if _, ok := k.Field(prop.Value); !ok && !k.Many {
			msg = "kind " + strconv.Quote(k.Name) + " has no field " + strconv.Quote(prop.Value)
		}
		return msg != ""
	})
	return msg
}

// checkCells splits every region by each cell's condition and checks, with the engine,
// the outcome on each part of the region that lies in the cell.
func (a *analyzer) checkCells(cells []*cell) ([]CellResult, error) {
	res := make([]CellResult, len(cells))
	for i, c := range cells {
		res[i] = CellResult{Table: c.table, Cell: c.name, Line: c.line, Expected: "objective " + c.objective}
		if c.rule != "" {
			res[i].Expected = "rule " + c.rule
		}
		if res[i].Off = c.off; c.off != "" {
			continue
		}
		for _, g := range a.leaves {
			if err := a.refine(g, g.r, c, &res[i]); err != nil {
				return nil, err
			}
		}
		res[i].Empty = res[i].Regions == 0
	}
	return res, nil
}

func (a *analyzer) refine(g *Region, r region, c *cell, res *CellResult) error {
	v := a.sp.eval(c.f, r)
	if !v.has(oT) {
		return nil
	}
	if v != oT {
		at := a.sp.findSplit(c.f, r)
		if at < 0 {
			return fmt.Errorf("cell %q cannot be decided on region #%d", c.name, g.Index)
		}
		t, f := a.sp.split(r, at)
		for _, part := range []region{t, f} {
			if !part.empty() {
				if err := a.refine(g, part, c, res); err != nil {
					return err
				}
			}
		}
		return nil
	}
	res.Regions++
	w := a.sp.witness(r)
	where := strings.Join(a.sp.describe(r), " && ")
	if err := inCell(a.rs, c.src, w); err != nil {
		return &DisagreementError{Region: where, Witness: w.String(), Detail: err.Error()}
	}
	cr, err := runWitness(a.rs, w)
	if err != nil {
		return err
	}
	fired := cr.Fired
	if g.Decided() && g.Kind != RegionOverlap && fired != strings.Join(g.Rules, "") {
		return &DisagreementError{Region: where, Witness: w.String(),
			Detail: fmt.Sprintf("the analysis picks %q, the engine fired %q", strings.Join(g.Rules, ""), fired)}
	}
	obj := ""
	if rule, ok := a.ruleByName(fired); ok {
		obj = rule.Then.Objective
	}
	ok := (c.rule != "" && fired == c.rule) || (c.objective != "" && fired != "" && obj == c.objective)
	if ok && g.Decided() {
		return nil
	}
	got := "no rule"
	if fired != "" {
		got = fired + " → " + obj
	}
	res.Failures = append(res.Failures, CellFailure{Condition: where, Got: got, Undecided: g.MayFire, Witness: w})
	return nil
}

// inCell checks with expr itself that a witness satisfies a cell's condition, so that the
// analysis's reading of the condition is checked too.
func inCell(rs *ruleset.RuleSet, src string, w Witness) error {
	env := map[string]any{}
	params := map[string]any{}
	for _, p := range rs.Params() {
		params[p.Name] = p.Value
	}
	env["params"] = params
	for _, k := range rs.Kinds() {
		env[k.Name] = nil
	}
	for _, f := range w.Facts {
		m := map[string]any{}
		for _, fv := range f.Fields {
			m[fv.Name] = fv.Value
		}
		env[f.Kind] = m
	}
	out, err := expr.Eval(src, env)
	if err != nil {
		return fmt.Errorf("evaluating the cell on its witness: %v", err)
	}
	if b, ok := out.(bool); !ok || !b {
		return fmt.Errorf("the witness does not satisfy the cell (expr gives %v)", out)
	}
	return nil
}
