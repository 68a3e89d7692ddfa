package ruleset

import (
	"errors"
	"reflect"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/checker"
	"github.com/expr-lang/expr/compiler"
	"github.com/expr-lang/expr/conf"
	"github.com/expr-lang/expr/file"
	"github.com/expr-lang/expr/optimizer"
	"github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/spine/cond"
)

// exprOptions are the expr options of the rule file's expressions: typed by the rule
// set's environment, then ops (a rule's predicate has a bool result), and no now(),
// which reads the wall clock and would make decisions depend on when they run.
func exprOptions(rs *RuleSet, ops ...expr.Option) []expr.Option {
	ops = append([]expr.Option{expr.Env(reflect.New(rs.envType).Interface())}, ops...)
	return append(ops, expr.DisableBuiltin("now"))
}

// exprConfig is the configuration expr.Compile makes of exprOptions.
func exprConfig(rs *RuleSet, ops ...expr.Option) *conf.Config {
	c := conf.CreateNew()
	for _, op := range exprOptions(rs, ops...) {
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
			if fe, ok := errors.AsType[*file.Error](err); ok {
				return nil, fe.Bind(tree.Source)
			}
			return nil, err
		}
	}
	return compiler.Compile(tree, cfg)
}

// condEnv resolves a rule set's names for package cond; Param is the rule set's.
type condEnv struct{ *RuleSet }

func (e condEnv) Kind(name string) (int, bool, bool) {
	k, ok := e.kindByName[name]
	if !ok {
		return 0, false, false
	}
	return k.index, k.Many, true
}

var condTypes = map[FieldType]cond.Type{TypeFloat: cond.TFloat, TypeInt: cond.TInt, TypeBool: cond.TBool, TypeString: cond.TString}

func (e condEnv) Field(kind int, name string) (int, cond.Type, bool) {
	k := e.kinds[kind]
	i, ok := k.fieldIx[name]
	if !ok {
		return 0, 0, false
	}
	return i, condTypes[k.Fields[i].Type], true // TOther for a list of strings
}

// Cond returns the rule's condition as package cond classified it from expr's checked,
// optimised tree.
func (r *Rule) Cond() *cond.Node { return r.cond }

// Condition compiles src as a rule's when would be compiled and classifies it; package
// analysis reads the conditions of expectation tables through it.
func (rs *RuleSet) Condition(src string) (*cond.Node, error) {
	prog, err := expr.Compile(src, exprOptions(rs, expr.AsBool())...)
	if err != nil {
		return nil, err
	}
	return cond.Extract(prog.Node(), condEnv{rs}), nil
}

// buildMatcher compiles every rule's condition into the rule set's matcher.
func (rs *RuleSet) buildMatcher() {
	conds := make([]*cond.Node, len(rs.rules))
	for i, r := range rs.rules {
		conds[i] = r.cond
	}
	rs.matcher = cond.Compile(conds)
}
