package engine

import (
	"errors"
	"fmt"
	"reflect"

	"github.com/agentspine/spine/spine/cond"
	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
)

// whenConfig is the expr configuration of a rule's predicate: typed by the rule set's
// environment, a bool result, and no now(), which reads the wall clock and would make
// decisions depend on when they run.
func whenConfig(rs *RuleSet) *conf.Config {
	c := conf.CreateNew()
	for _, op := range []expr.Option{expr.Env(reflect.New(rs.envType).Interface()), expr.AsBool(), expr.DisableBuiltin("now")} {
		op(c)
	}
	for name := range c.Disabled {
		delete(c.Builtins, name)
	}
	c.Check()
	return c
}

// checkAndCompile does what expr.Compile does after parsing, on a tree already parsed
// with cfg: check, optimise, compile. The program's Node is the optimised tree.
func checkAndCompile(tree *parser.Tree, cfg *conf.Config) (*vm.Program, error) {
	if _, err := new(checker.Checker).PatchAndCheck(tree, cfg); err != nil {
		return nil, err
	}
	if cfg.Optimize {
		if err := optimizer.Optimize(&tree.Node, cfg); err != nil {
			var fe *file.Error
			if errors.As(err, &fe) {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, cfg)
}

// condEnv resolves a rule set's names for package cond.
type condEnv struct{ rs *RuleSet }

func (e condEnv) Kind(name string) (int, bool, bool) {
	k, ok := e.rs.kindByName[name]
	if !ok {
		return 0, false, false
	}
	return k.index, k.Many, true
}

var condTypes = map[FieldType]cond.Type{TypeFloat: cond.TFloat, TypeInt: cond.TInt, TypeBool: cond.TBool, TypeString: cond.TString}

func (e condEnv) Field(kind int, name string) (int, cond.Type, bool) {
	k := e.rs.kinds[kind]
	i, ok := k.fieldIx[name]
	if !ok {
		return 0, 0, false
	}
	return i, condTypes[k.Fields[i].Type], true // TOther for a list of strings
}

func (e condEnv) Param(name string) (any, bool) {
	p, ok := e.rs.paramByName[name]
	if !ok {
		return nil, false
	}
	return p.Value, true
}

// Cond returns the rule's condition as package cond classified it from expr's checked,
// optimised tree.
func (r *Rule) Cond() *cond.Node { return r.cond }

// Condition compiles src as a rule's when would be compiled and classifies it; package
// analysis reads the conditions of expectation tables through it.
func (rs *RuleSet) Condition(src string) (*cond.Node, error) {
	cfg := whenConfig(rs)
	tree, err := parser.ParseWithConfig(src, cfg)
	if err != nil {
		return nil, err
	}
	prog, err := checkAndCompile(tree, cfg)
	if err != nil {
		return nil, err
	}
	return cond.Extract(prog.Node(), condEnv{rs}), nil
}

// inputSlot is a field the matcher reads, as working memory refreshes it.
type inputSlot struct {
	slot, Field int
	Type        cond.Type
}

// buildMatcher compiles every rule's condition into the rule set's matcher and lists,
// per kind, the fields working memory copies into its input.
func (rs *RuleSet) buildMatcher() {
	conds := make([]*cond.Node, len(rs.rules))
	for i, r := range rs.rules {
		conds[i] = r.cond
	}
	rs.matcher = cond.Compile(conds)
	rs.slotsOf = make([][]inputSlot, len(rs.kinds))
	for i, s := range rs.matcher.Slots() {
		rs.slotsOf[s.Kind] = append(rs.slotsOf[s.Kind], inputSlot{slot: i, Field: s.Field, Type: s.Type})
	}
}

// maxWitnesses bounds the fact combinations checkMatcher tries per rule.
const maxWitnesses = 256

// checkBudget bounds checkMatcher's work, counted as VM runs times fact kinds (the VM
// finds a kind by name, so a run costs in proportion to them): a rule set of thousands of
// kinds and rules is checked on its first rules, not for minutes. The generated rule sets
// of FuzzMatcherMatchesVM check every rule.
const checkBudget = 4_000_000

// checkMatcher evaluates every analysable rule both ways, with the matcher and with expr's
// VM, on witnesses of its regions: each field it reads at, just below and just above
// every constant compared with it, one field varied at a time and, while their number
// stays under maxWitnesses, every combination, with the facts present and absent. An
// error names the facts on which they disagree, and the rule is returned with it.
func (rs *RuleSet) checkMatcher() (*Rule, error) {
	wm := NewWorkingMemory(rs, nil)
	set := make([]uint64, rs.matcher.Words())
	var machine vm.VM
	spent := 0
	for _, r := range rs.rules {
		if r.cond == nil || !rs.matcher.Analysable(r.index) {
			continue
		}
		w := rs.witnesses(r)
		points := w.points()
		if spent += len(points) * len(rs.kinds); spent > checkBudget {
			break
		}
		for _, facts := range points {
			for _, i := range w.kinds { // the only kinds the rule reads, set by earlier points
				k := rs.kinds[i]
				wm.kinds[i].has, wm.kinds[i].live = false, payloadBuf{}
				wm.syncEnv(k)
			}
			for kind, fields := range facts {
				if err := wm.Set(rs.kinds[kind].Name, "", fields); err != nil {
					return r, fmt.Errorf("rule %s: witness %v: %w", r.Name, fields, err)
				}
			}
			rs.matcher.LookupRule(r.index, &wm.in, set)
			got, ok := rs.matcher.Rule(r.index, &wm.in, set)
			if !ok {
				continue // a fact it reads is absent: the VM decides anyway
			}
			out, err := machine.Run(r.program, wm.envValue())
			if want, isBool := out.(bool); err != nil || !isBool || want != got {
				return r, fmt.Errorf("rule %s: the matcher gives %v and expr %v (error %v) on %s", r.Name, got, out, err, describeFacts(rs, facts))
			}
		}
	}
	return nil, nil
}

func describeFacts(rs *RuleSet, facts map[int]Fields) string {
	s := ""
	for _, k := range rs.kinds {
		if f, ok := facts[k.index]; ok {
			s += fmt.Sprintf(" %s%v", k.Name, map[string]any(f))
		}
	}
	if s == "" {
		return "no facts"
	}
	return s[1:]
}
