package analysis

import (
	"math"
	"sort"
	"strings"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// space holds the variables and atoms of every condition analysed together.
type space struct {
	rs     *ruleset.RuleSet
	dom    map[string]*Domain
	params map[string]ruleset.Param
	vars   []*variable
	byName map[string]int
	atoms  []*atom
	steps  int            // pieces looked at by evalAtom: the never-fires analysis's budget counts them
	spans  map[*bool]span // rows narrowed by the never-fires search, by their first piece
}

func newSpace(rs *ruleset.RuleSet, dom map[string]*Domain) *space {
	sp := &space{rs: rs, dom: dom, params: map[string]ruleset.Param{}, byName: map[string]int{}}
	for _, p := range rs.Params() {
		sp.params[p.Name] = p
	}
	return sp
}

// alwaysPresent reports whether a kind's fact exists in every cycle the analysis models.
func (sp *space) alwaysPresent(kind string) bool {
	if kind == ruleset.KindState {
		return true // the engine sets the state before any cycle
	}
	d := sp.dom[kind]
	return d != nil && d.Present
}

func (sp *space) presenceVar(kind string) int {
	if i, ok := sp.byName[kind]; ok {
		return i
	}
	v := &variable{name: kind, form: varPresence, kind: kind}
	if sp.alwaysPresent(kind) {
		v.pieces = []piece{{rep: true}}
	} else {
		v.pieces = []piece{{rep: false}, {rep: true}}
	}
	return sp.add(v)
}

func (sp *space) add(v *variable) int {
	sp.vars = append(sp.vars, v)
	sp.byName[v.name] = len(sp.vars) - 1
	return len(sp.vars) - 1
}

// fieldRef returns a field with its domain: the declared one, or the default of its type.
func (sp *space) fieldRef(kind string, f ruleset.Field) fieldRef {
	r := fieldRef{kind: kind, field: f.Name, ftype: f.Type, lo: math.Inf(-1), hi: math.Inf(1), integer: f.Type == ruleset.TypeInt}
	switch {
	case kind == ruleset.KindState && f.Name == "iteration":
		r.lo = 1 // iterations count from 1
	case kind == ruleset.KindState && f.Name == "name":
		r.strSet = []string{engine.StateSelect} // the analysis models select_objective cycles
	case kind == ruleset.KindObjective && f.Name == "name":
		for _, o := range sp.rs.Objectives() {
			r.strSet = append(r.strSet, o.Name)
		}
	case kind == ruleset.KindObjective && f.Name == "rule":
		for _, rule := range sp.rs.Rules() {
			if rule.Then.Objective != "" {
				r.strSet = append(r.strSet, rule.Name)
			}
		}
	}
	if d := sp.dom[r.name()]; d != nil {
		switch d.Form {
		case FormRange:
			r.lo, r.hi = d.Min, d.Max
			r.integer = r.integer || d.Integer
		case FormNumbers:
			r.numSet = append([]float64(nil), d.Numbers...)
			sort.Float64s(r.numSet)
		case FormStrings:
			r.strSet = append([]string(nil), d.Strings...)
		}
	}
	if r.integer && r.numSet == nil {
		r.lo, r.hi = math.Ceil(r.lo), math.Floor(r.hi)
	}
	return r
}

func (sp *space) fieldVar(ref fieldRef) int {
	if i, ok := sp.byName[ref.name()]; ok {
		return i
	}
	form := varNum
	switch ref.ftype {
	case ruleset.TypeBool:
		form = varBool
	case ruleset.TypeString:
		form = varStr
	}
	v := &variable{name: ref.name(), form: form, kind: ref.kind, fields: []fieldRef{ref}, thresholds: map[float64]string{}}
	v.needs = []int{sp.presenceVar(ref.kind)}
	return sp.add(v)
}

func (sp *space) diffVar(a, b fieldRef) int {
	name := a.name() + " - " + b.name()
	if i, ok := sp.byName[name]; ok {
		return i
	}
	v := &variable{name: name, form: varDiff, kind: a.kind, fields: []fieldRef{a, b}}
	v.needs = []int{sp.presenceVar(a.kind)}
	if b.kind != a.kind {
		v.needs = append(v.needs, sp.presenceVar(b.kind))
	}
	return sp.add(v)
}

func (sp *space) addAtom(v int, text string, test func(any) bool) formula {
	sp.atoms = append(sp.atoms, &atom{v: v, text: text, test: test})
	return fAtom{len(sp.atoms) - 1}
}

// addThresholds records where a term compared with a constant changes truth.
func (sp *space) addThresholds(t term, c cval) {
	v := sp.vars[t.v]
	put := func(x float64, text string) {
		if x == 0 {
			x = 0 // no negative zero
		}
		old, ok := v.thresholds[x]
		if !ok || (!strings.Contains(old, "params.") && strings.Contains(text, "params.")) {
			v.thresholds[x] = text
		}
	}
	switch {
	case t.abs:
		put(math.Abs(c.num), absText(c))
		put(-math.Abs(c.num), negText(absText(c)))
	case t.neg:
		put(-c.num, negText(c.text))
	default:
		put(c.num, c.text)
	}
}

func absText(c cval) string {
	if c.num < 0 {
		return negText(c.text)
	}
	return c.text
}

func (sp *space) addLiteral(v int, s string) {
	x := sp.vars[v]
	if x.literalSet == nil {
		x.literalSet = map[string]bool{}
	}
	if !x.literalSet[s] { // a set: a file may compare one field with thousands of strings
		x.literalSet[s] = true
		x.literals = append(x.literals, s)
	}
}

// finish cuts every variable into pieces and demotes field comparisons whose fields other
// conditions also constrain: their difference is then not independent of the other
// variables, so deciding it alone could be wrong.
func (sp *space) finish() {
	uses := map[string]int{}
	for _, v := range sp.vars {
		for _, f := range v.fields {
			uses[f.name()]++
		}
	}
	for i, v := range sp.vars {
		switch v.form {
		case varNum:
			cuts := make([]float64, 0, len(v.thresholds))
			for x := range v.thresholds {
				cuts = append(cuts, x)
			}
			sort.Float64s(cuts)
			v.pieces = numPieces(v.fields[0], cuts)
		case varBool:
			v.pieces = boolPieces
		case varStr:
			v.pieces = strPieces(v.fields[0], v.literals)
		case varDiff:
			a, b := v.fields[0], v.fields[1]
			if uses[a.name()] > 1 || uses[b.name()] > 1 {
				reason := "compares " + a.name() + " with " + b.name() + ", which other conditions also constrain"
				for _, at := range sp.atoms {
					if at.v == i {
						at.opaque = reason
					}
				}
				v.pieces = []piece{{rep: 0.0}}
				continue
			}
			v.pieces = diffPieces(a, b)
		}
	}
}

// opaqueVar reports whether a variable's atoms were all demoted.
func (sp *space) opaqueVar(i int) bool {
	for _, at := range sp.atoms {
		if at.v == i {
			return at.opaque != ""
		}
	}
	return false
}
