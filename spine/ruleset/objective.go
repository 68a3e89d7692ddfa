package ruleset

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/expr-lang/expr/ast"
	"github.com/expr-lang/expr/vm"
	"gopkg.in/yaml.v3"
)

// An objective is the seed's Objective(name, score(signals), satisfied(signals)): a rule
// file may give it a score (how attainable or how far along it is, a number) and a
// satisfied test (a bool), both expr expressions over the declared facts and params.
// They are type-checked at load, evaluated at the start of every agenda cycle, recorded
// in the cycle's conflict_set event and visible to rules as objectives.NAME.score and
// objectives.NAME.satisfied. An objective may read the objectives declared before it, so
// objectives compose without cycles.

// KindObjectives is the environment name under which rules read scored objectives.
const KindObjectives = "objectives"

// objectiveProgs is an objective's compiled score and satisfied.
type objectiveProgs struct {
	score, satisfied *vm.Program
	field            int   // the objective's struct in the objectives field; -1 when unscored
	scoreIx, satIx   int   // field indexes in that struct, -1 when not declared
	reads            []int // kind indexes read, directly or through earlier objectives
}

// objectiveEnv places the scored objectives in the rule environment: one struct field,
// objectives, holding a struct per objective with its score and satisfied. It is a value
// inside the environment, not a pointer, so every working memory has its own.
type objectiveEnv struct {
	field  int          // index of "objectives" in the environment struct; -1 when none is scored
	scored []*Objective // the scored objectives, in file order
}

// build lays out the objectives field and returns env with it appended, or env unchanged
// when no objective declares a score or satisfied: rule sets without them keep the
// environment, and the traces, they had.
func (oe *objectiveEnv) build(objs []Objective, env []reflect.StructField) []reflect.StructField {
	oe.field, oe.scored = -1, nil
	var fields []reflect.StructField
	for i := range objs {
		o := &objs[i]
		o.eval.field, o.eval.scoreIx, o.eval.satIx = -1, -1, -1
		var sf []reflect.StructField
		if o.Score != "" {
			o.eval.scoreIx = len(sf)
			sf = append(sf, reflect.StructField{Name: "Score", Type: fieldTypes[TypeFloat], Tag: `expr:"score" json:"score"`})
		}
		if o.Satisfied != "" {
			o.eval.satIx = len(sf)
			sf = append(sf, reflect.StructField{Name: "Satisfied", Type: fieldTypes[TypeBool], Tag: `expr:"satisfied" json:"satisfied"`})
		}
		if len(sf) == 0 {
			continue
		}
		o.eval.field = len(fields)
		fields = append(fields, reflect.StructField{
			Name: fmt.Sprintf("O%d", i), Type: reflect.StructOf(sf), Tag: reflect.StructTag(fmt.Sprintf(`expr:%q`, o.Name)),
		})
		oe.scored = append(oe.scored, o)
	}
	if len(fields) == 0 {
		return env
	}
	oe.field = len(env)
	return append(env, reflect.StructField{Name: "Objectives", Type: reflect.StructOf(fields), Tag: `expr:"objectives"`})
}

// ScoredObjectives returns the objectives that declare a score or satisfied, in file
// order. The returned objectives must not be modified.
func (rs *RuleSet) ScoredObjectives() []*Objective { return rs.objEnv.scored }

// Programs returns the objective's compiled score and satisfied, nil for a part it does
// not declare. Both run against an environment from NewEnv.
func (o *Objective) Programs() (score, satisfied *vm.Program) {
	return o.eval.score, o.eval.satisfied
}

// StoreObjective writes a scored objective's values into env, an environment from
// NewEnv, where rules read them as objectives.NAME.score and objectives.NAME.satisfied.
func (rs *RuleSet) StoreObjective(env reflect.Value, o *Objective, score float64, satisfied bool) {
	f := env.Elem().Field(rs.objEnv.field).Field(o.eval.field)
	if o.eval.scoreIx >= 0 {
		f.Field(o.eval.scoreIx).SetFloat(score)
	}
	if o.eval.satIx >= 0 {
		f.Field(o.eval.satIx).SetBool(satisfied)
	}
}

// objectiveExpr reads an objective's score or satisfied source: any scalar, a number or
// a bool included; "" when n is nil (not given).
func (l *loader) objectiveExpr(n *yaml.Node, name, part string) string {
	src, ok := l.stringScalar(n, fmt.Sprintf("objective %q: %s", name, part))
	if ok && strings.TrimSpace(src) == "" {
		l.errNode(n, "objective %q: %s: empty expression", name, part)
		return ""
	}
	return src
}

// compileObjectives compiles every objective's score (a number) and satisfied (a bool),
// in file order.
func (l *loader) compileObjectives(rs *RuleSet) {
	for i, nodes := range l.objNodes {
		o := &rs.objectives[i]
		o.eval.score = l.compileObjectiveExpr(rs, i, o.Score, "score", TypeFloat, nodes[0])
		o.eval.satisfied = l.compileObjectiveExpr(rs, i, o.Satisfied, "satisfied", TypeBool, nodes[1])
	}
}

// compileObjectiveExpr compiles part of objective index, src at n (nil when src is ""),
// and checks that its static type converts to want's. An expression whose type expr
// cannot know (interface) is checked when it runs.
func (l *loader) compileObjectiveExpr(rs *RuleSet, index int, src, part string, want FieldType, n *yaml.Node) *vm.Program {
	if src == "" {
		return nil
	}
	o := &rs.objectives[index]
	prefix := fmt.Sprintf("objective %q: %s", o.Name, part)
	prog, reads, _ := l.compileExpr(rs, n, exprConfig(rs), index, prefix, "objectives")
	if prog == nil {
		return nil
	}
	// Only the numeric kinds convert to float64, and only bools to bool.
	if t := prog.Node().Type(); t != nil && t.Kind() != reflect.Interface && !t.ConvertibleTo(fieldTypes[want]) {
		line, col := newScalarMap(l.lines, n).at(0)
		l.errAt(line, col, "%s: expected %s, got %s", prefix, typeDescription[want], rs.friendlyTypes(t.String()))
		return nil
	}
	o.eval.reads = slices.Compact(slices.Sorted(slices.Values(append(o.eval.reads, reads...))))
	return prog
}

// checkNames checks the names an expression reads, kind.field, params.name and
// objectives.NAME.part, and returns the fact kinds it reads, directly or through the
// objectives it reads, sorted. self is the objective being compiled, or -1 for a rule:
// an objective may read only the objectives declared before it.
func checkNames(rs *RuleSet, n ast.Node, self int, report func(int, string)) ([]int, bool) {
	ok := true
	fail := func(at ast.Node, msg string) {
		report(at.Location().From, msg)
		ok = false
	}
	reads := map[int]bool{}
	named := map[*ast.IdentifierNode]bool{} // objectives identifiers read by name
	var idents []*ast.IdentifierNode
	ast.Walk(&n, visitor(func(node ast.Node) {
		switch x := node.(type) {
		case *ast.IdentifierNode:
			if k, found := rs.kindByName[x.Value]; found {
				reads[k.index] = true
			}
			if x.Value == KindObjectives {
				idents = append(idents, x)
			}
		case *ast.MemberNode:
			if inner, isMember := x.Node.(*ast.MemberNode); isMember {
				checkObjectivePart(rs, inner, x.Property, fail)
				return
			}
			id, isIdent := x.Node.(*ast.IdentifierNode)
			prop, isStr := x.Property.(*ast.StringNode)
			if !isIdent || !isStr {
				return // objectives[…] is reported below, as an identifier not read by name
			}
			switch id.Value {
			case "params":
				if _, found := rs.paramByName[prop.Value]; !found {
					fail(prop, "unknown param "+strconv.Quote(prop.Value)+paramList(rs))
				}
			case KindObjectives:
				named[id] = true
				o, found := rs.objectiveByName[prop.Value]
				switch {
				case !found:
					fail(prop, "unknown objective "+strconv.Quote(prop.Value)+scoredList(rs))
				case o.Score == "" && o.Satisfied == "":
					fail(prop, fmt.Sprintf("objective %q declares no score or satisfied%s", o.Name, scoredList(rs)))
				case self >= 0 && o.Name == rs.objectives[self].Name:
					fail(prop, fmt.Sprintf("objective %q cannot read itself", o.Name))
				case self >= 0 && slices.IndexFunc(rs.objectives, func(x Objective) bool { return x.Name == o.Name }) > self:
					fail(prop, fmt.Sprintf("objective %q is declared after %q; an objective reads only those declared before it", o.Name, rs.objectives[self].Name))
				default:
					for _, k := range o.eval.reads {
						reads[k] = true
					}
				}
			default:
				if k, found := rs.kindByName[id.Value]; found && !k.Many {
					if _, has := k.fieldIx[prop.Value]; !has {
						fail(prop, "unknown field "+strconv.Quote(prop.Value)+" of fact kind "+
							strconv.Quote(k.Name)+" (fields: "+strings.Join(k.FieldNames(), ", ")+")")
					}
				}
			}
		}
	}))
	for _, id := range idents {
		if !named[id] {
			fail(id, "read objectives by name, as objectives.NAME.score or objectives.NAME.satisfied")
		}
	}
	return slices.Sorted(maps.Keys(reads)), ok
}

// checkObjectivePart checks the part read in objectives.NAME.part, inner being
// objectives.NAME: it must be one NAME declares. An undeclared or unscored NAME is
// reported once, on inner.
func checkObjectivePart(rs *RuleSet, inner *ast.MemberNode, part ast.Node, fail func(ast.Node, string)) {
	id, isIdent := inner.Node.(*ast.IdentifierNode)
	name, isStr := inner.Property.(*ast.StringNode)
	if !isIdent || !isStr || id.Value != KindObjectives {
		return
	}
	o := rs.objectiveByName[name.Value]
	if o == nil || (o.Score == "" && o.Satisfied == "") {
		return
	}
	p, isStr := part.(*ast.StringNode)
	switch {
	case !isStr:
		fail(part, fmt.Sprintf("read objective %q's parts by name (score or satisfied)", o.Name))
	case p.Value == "score" && o.Score == "", p.Value == "satisfied" && o.Satisfied == "":
		fail(part, fmt.Sprintf("objective %q declares no %s", o.Name, p.Value))
	case p.Value != "score" && p.Value != "satisfied":
		fail(part, fmt.Sprintf("objective %q has no %q (an objective has score and satisfied)", o.Name, p.Value))
	}
}

func scoredList(rs *RuleSet) string {
	return choices("scored objectives", rs.objEnv.scored, func(o *Objective) string { return o.Name }, "no objective declares a score or satisfied")
}
