package ruleset

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/spine/cond"
	"github.com/agentspine/spine/spine/trace"
)

// Objective terminal values.
const (
	TerminalSuccess = "success"
	TerminalFailure = "failure"
)

// Objective is a pre-registered goal a rule may select. A terminal objective ends the run
// with its outcome.
type Objective struct {
	Name        string
	Description string
	Terminal    string // "", TerminalSuccess or TerminalFailure
	// Score and Satisfied are the objective's expr expressions over the facts, "" when
	// not given: how attainable it is (a number) and whether it is met (a bool). They
	// are evaluated every cycle; see engine.ObjectiveEval.
	Score     string
	Satisfied string

	eval objectiveProgs // compiled Score and Satisfied
}

// Param is a named value of a rule file, visible to rules as params.<name>. Numbers are
// float64.
type Param struct {
	Name      string
	Type      FieldType // TypeFloat, TypeBool or TypeString
	Value     any
	Line, Col int
}

// Rule is one compiled production rule.
type Rule struct {
	Name        string
	Salience    int
	When        string
	Description string
	// Then is what the rule does when it fires, as its rule_fired event records it: data
	// the engine carries out. The field values of its asserts and updates are held
	// typed as well (AssertFields, UpdateFields), so a firing decodes nothing.
	Then trace.Then
	// Specificity is the number of top-level conjuncts of When.
	Specificity int
	// Reads lists the fact kinds When refers to, in declaration order; recency and
	// refraction are computed over them.
	Reads []string
	Line  int // line of the rule in its file

	index   int
	final   bool  // Then sets a terminal objective
	reads   []int // kind indexes
	program *vm.Program
	cond    *cond.Node // When classified from program's tree; nil when it did not compile

	assertFields, updateFields []Fields // Then.Assert's and Then.Update's field values, by index

	thenJSON json.RawMessage // Then as rule_fired records it, encoded at load
	thenErr  error           // why Then could not be encoded; reported when the rule fires
}

// RuleSet is a compiled rule file. It is immutable once loaded and safe to share between
// goroutines and sessions.
type RuleSet struct {
	name, description, path, hash string
	source                        string // the file's bytes, which hash to hash: a trace header carries them

	params      []Param
	paramByName map[string]*Param
	paramsVal   reflect.Value // pointer to a struct of the params
	paramsField int           // index of "params" in the environment struct

	kinds      []*FactKind // built-in kinds first, then declared order
	kindByName map[string]*FactKind

	objectives      []Objective
	objectiveByName map[string]*Objective
	objEnv          objectiveEnv // where scored objectives live in the environment

	rules   []*Rule
	domains []byte  // the file's domains: mapping, as a YAML document at its own positions
	order   []*Rule // static agenda order: salience ↓, specificity ↓, name ↑
	envType reflect.Type
	matcher *cond.Matcher // decides every analysable rule in one lookup
}

// Name is the rule set's declared name.
func (rs *RuleSet) Name() string { return rs.name }

// Description is the rule set's declared description.
func (rs *RuleSet) Description() string { return rs.description }

// Path is the name the rule set was loaded under.
func (rs *RuleSet) Path() string { return rs.path }

// Hash is "sha256:" and the hex digest of the rule file's bytes.
func (rs *RuleSet) Hash() string { return rs.hash }

// DomainsSource returns the rule file's `domains:` mapping as a YAML document whose
// lines and columns are those of the rule file, and false when the file declares none.
// Package analysis reads it; the engine does not use it.
func (rs *RuleSet) DomainsSource() ([]byte, bool) { return rs.domains, rs.domains != nil }

// Rules returns the rules in file order. The returned rules must not be modified.
func (rs *RuleSet) Rules() []*Rule { return rs.rules }

// Params returns the params in file order.
func (rs *RuleSet) Params() []Param { return append([]Param(nil), rs.params...) }

// Param returns a param's value.
func (rs *RuleSet) Param(name string) (any, bool) {
	p, ok := rs.paramByName[name]
	if !ok {
		return nil, false
	}
	return p.Value, true
}

// ParamMap returns the params by name, for trace headers.
func (rs *RuleSet) ParamMap() map[string]any {
	m := make(map[string]any, len(rs.params))
	for _, p := range rs.params {
		m[p.Name] = p.Value
	}
	return m
}

// Kinds returns the fact kinds, built-in ones first.
func (rs *RuleSet) Kinds() []*FactKind { return rs.kinds }

// Kind returns a fact kind by name.
func (rs *RuleSet) Kind(name string) (*FactKind, bool) {
	k, ok := rs.kindByName[name]
	return k, ok
}

// Objectives returns the declared objectives in file order.
func (rs *RuleSet) Objectives() []Objective { return append([]Objective(nil), rs.objectives...) }

// Objective returns a declared objective.
func (rs *RuleSet) Objective(name string) (Objective, bool) {
	o, ok := rs.objectiveByName[name]
	if !ok {
		return Objective{}, false
	}
	return *o, true
}

// finish indexes the declared params, kinds (after the built-in ones) and objectives,
// and builds the environment type: one field per fact kind, then params, then the
// scored objectives. The loader has refused duplicate and reserved names.
func (rs *RuleSet) finish() {
	rs.paramByName = map[string]*Param{}
	rs.kindByName = map[string]*FactKind{}
	rs.objectiveByName = map[string]*Objective{}
	rs.kinds = append(builtinKinds(), rs.kinds...)
	var envFields []reflect.StructField
	for i, k := range rs.kinds {
		k.index = i
		k.build()
		rs.kindByName[k.Name] = k
		t := reflect.PointerTo(k.typ)
		if k.Many {
			t = reflect.SliceOf(t)
		}
		envFields = append(envFields, reflect.StructField{
			Name: fmt.Sprintf("K%d", k.index), Type: t, Tag: reflect.StructTag(fmt.Sprintf(`expr:%q`, k.Name)),
		})
	}
	var pf []reflect.StructField
	for i := range rs.params {
		p := &rs.params[i]
		rs.paramByName[p.Name] = p
		pf = append(pf, reflect.StructField{
			Name: fmt.Sprintf("P%d", i), Type: fieldTypes[p.Type], Tag: reflect.StructTag(fmt.Sprintf(`expr:%q json:%q`, p.Name, p.Name)),
		})
	}
	pt := reflect.StructOf(pf)
	rs.paramsVal = reflect.New(pt)
	for i, p := range rs.params {
		rs.paramsVal.Elem().Field(i).Set(reflect.ValueOf(p.Value))
	}
	rs.paramsField = len(envFields)
	envFields = append(envFields, reflect.StructField{Name: "Params", Type: reflect.PointerTo(pt), Tag: `expr:"params"`})
	envFields = rs.objEnv.build(rs.objectives, envFields)
	rs.envType = reflect.StructOf(envFields)
	for i := range rs.objectives {
		rs.objectiveByName[rs.objectives[i].Name] = &rs.objectives[i]
	}
}

// prepare computes the static part of the agenda order. Cycles evaluate rules in this
// order, so the conflict set comes out sorted except for recency ties, and ordering it
// costs little.
func (rs *RuleSet) prepare() {
	rs.order = slices.Clone(rs.rules)
	slices.SortStableFunc(rs.order, func(a, b *Rule) int {
		return cmp.Or(cmp.Compare(b.Salience, a.Salience), cmp.Compare(b.Specificity, a.Specificity), strings.Compare(a.Name, b.Name))
	})
	for _, r := range rs.order {
		o, ok := rs.objectiveByName[r.Then.Objective]
		r.final = ok && o.Terminal != ""
	}
	rs.buildMatcher()
}

// Order returns the rules in the static agenda order: salience ↓, specificity ↓, name ↑.
// The returned rules must not be modified.
func (rs *RuleSet) Order() []*Rule { return rs.order }

// Matcher returns the matcher compiled from the rules' conditions, indexed by rule index.
func (rs *RuleSet) Matcher() *cond.Matcher { return rs.matcher }

// Source returns the rule file's bytes, which hash to Hash.
func (rs *RuleSet) Source() string { return rs.source }

// NewEnv returns a new environment for the rule set's programs: a pointer to a struct
// whose field i is fact kind i (nil until the caller sets it), then the params, set,
// and the scored objectives' values.
func (rs *RuleSet) NewEnv() reflect.Value {
	env := reflect.New(rs.envType)
	env.Elem().Field(rs.paramsField).Set(rs.paramsVal)
	return env
}

// Index is the rule's position in Rules, by which the matcher knows it.
func (r *Rule) Index() int { return r.index }

// Program is When compiled for expr's VM, run against an environment from NewEnv; nil
// for a rule built by hand.
func (r *Rule) Program() *vm.Program { return r.program }

// ReadKinds are the indexes in Kinds of the kinds in Reads.
func (r *Rule) ReadKinds() []int { return r.reads }

// ObjectiveOnly reports whether the rule's then sets an objective and changes no fact.
func (r *Rule) ObjectiveOnly() bool {
	t := &r.Then
	return t.Objective != "" && len(t.Retract)+len(t.Assert)+len(t.Update) == 0
}

// Terminal reports whether the rule's then sets a terminal objective.
func (r *Rule) Terminal() bool { return r.final }

// AssertFields is the field values of Then.Assert[i], as typed as the load made them.
func (r *Rule) AssertFields(i int) Fields { return r.assertFields[i] }

// UpdateFields is the field values of Then.Update[i], as typed as the load made them.
func (r *Rule) UpdateFields(i int) Fields { return r.updateFields[i] }

// ThenJSON is Then as a rule_fired event records it, encoded at load.
func (r *Rule) ThenJSON() (json.RawMessage, error) { return r.thenJSON, r.thenErr }
