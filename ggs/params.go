package ggs

import (
	"fmt"
	"math"

	"github.com/agentspine/spine/spine/ruleset"
)

// ParamSource looks up a named param of a loaded rule set (*ruleset.RuleSet satisfies it).
type ParamSource interface {
	Param(name string) (any, bool)
}

// Params are the loss weights and decision thresholds of the seed's hyperparameter table.
// They are read from the rule set by name, so editing the rule file changes the arithmetic
// as well as the decisions.
type Params struct {
	Alpha        float64 // α: weight on D
	Beta         float64 // β: weight on P before budget scaling
	Lambda       float64 // λ: weight on Ω
	W1           float64 // w₁: Ω sub-weight of replans / maxReplans
	W2           float64 // w₂: Ω sub-weight of elapsed / time budget
	Epsilon      float64 // ε: |∇L| below this is a plateau
	Delta        float64 // δ: D at or below this is success
	Rho          float64 // ρ: P above this is a logical failure
	Theta        float64 // θ: Ω at or above this abandons
	TimeBudgetMS float64 // time budget per task, milliseconds
	MaxReplans   int     // maxReplans of the Ω formula
	Law2Kill     int     // consecutive worsening rounds that force abandon
	// ReplanCap, when 1 or more, is how many PlanDirectives a task may receive before a
	// round that would replan abandons instead; 0 (as shipped) is seed 000's table, where
	// only Ω ≥ θ ends a task for its budget. The rules read it as params.replan_cap.
	ReplanCap int
	// MaxFaultRetries is how many consecutive rounds a fault of the machinery may cut
	// short before the task is abandoned; the rules read it as params.max_fault_retries.
	MaxFaultRetries int
}

// ParamNames lists the params ParamsFrom reads, in the order of the seed's table.
var ParamNames = []string{
	"alpha", "beta", "lambda", "w1", "w2", "epsilon", "delta", "rho", "theta",
	"time_budget_ms", "max_replans", "replan_cap", "law2_kill", "max_fault_retries",
}

// ParamsFrom reads every param of ParamNames from src. A missing param, a value that is
// not a number between -1e12 and 1e12, a non-positive time budget or maxReplans, a negative replan_cap, an integer param
// with a fraction, or a Law 2 threshold below 1 is an error naming the param.
func ParamsFrom(src ParamSource) (Params, error) {
	var p Params
	floats := []struct {
		name string
		dst  *float64
	}{
		{"alpha", &p.Alpha}, {"beta", &p.Beta}, {"lambda", &p.Lambda},
		{"w1", &p.W1}, {"w2", &p.W2}, {"epsilon", &p.Epsilon}, {"delta", &p.Delta},
		{"rho", &p.Rho}, {"theta", &p.Theta}, {"time_budget_ms", &p.TimeBudgetMS},
	}
	for _, f := range floats {
		v, err := number(src, f.name)
		if err != nil {
			return Params{}, err
		}
		*f.dst = v
	}
	ints := []struct {
		name string
		dst  *int
	}{{"max_replans", &p.MaxReplans}, {"replan_cap", &p.ReplanCap}, {"law2_kill", &p.Law2Kill}, {"max_fault_retries", &p.MaxFaultRetries}}
	for _, f := range ints {
		v, err := number(src, f.name)
		if err != nil {
			return Params{}, err
		}
		if v != math.Trunc(v) || math.Abs(v) > 1<<31 {
			return Params{}, fmt.Errorf("param %s: want a whole number, got %v", f.name, v)
		}
		*f.dst = int(v)
	}
	switch {
	case p.TimeBudgetMS <= 0:
		return Params{}, fmt.Errorf("param time_budget_ms: want > 0, got %v", p.TimeBudgetMS)
	case p.MaxReplans < 1:
		return Params{}, fmt.Errorf("param max_replans: want >= 1, got %d", p.MaxReplans)
	case p.ReplanCap < 0:
		return Params{}, fmt.Errorf("param replan_cap: want 0 (off) or more, got %d", p.ReplanCap)
	case p.Law2Kill < 1:
		return Params{}, fmt.Errorf("param law2_kill: want >= 1, got %d", p.Law2Kill)
	case p.MaxFaultRetries < 0:
		return Params{}, fmt.Errorf("param max_fault_retries: want >= 0, got %d", p.MaxFaultRetries)
	}
	return p, nil
}

const maxParam = 1e12

// ParamMap is a ParamSource over params decoded from JSON: the values a trace's header
// records that its run used, overrides included.
type ParamMap map[string]any

// Param is the named param, ok false when m has none.
func (m ParamMap) Param(name string) (any, bool) {
	v, ok := m[name]
	return v, ok
}

// Lookup reads one named param of src as ParamsFrom reads it: ok is false when src has
// none; a value that is there but not a number between -1e12 and 1e12 is an error
// naming the param. A reader that needs one param (ε for ∇L's arrow, the thresholds a
// plot draws) takes it here, so it is read as GGS reads it.
func Lookup(src ParamSource, name string) (v float64, ok bool, err error) {
	if _, ok := src.Param(name); !ok {
		return 0, false, nil
	}
	v, err = number(src, name)
	return v, err == nil, err
}

func number(src ParamSource, name string) (float64, error) {
	v, ok := src.Param(name)
	if !ok {
		return 0, fmt.Errorf("no param %s", name)
	}
	f, ok := ruleset.Number(v)
	if !ok {
		return 0, fmt.Errorf("param %s: want a number, got %T %v", name, v, v)
	}
	// Bounded so that no loss can overflow to ±Inf, which JSON cannot print.
	if math.IsNaN(f) || math.Abs(f) > maxParam {
		return 0, fmt.Errorf("param %s: want a number between -1e12 and 1e12, got %v", name, f)
	}
	return f, nil
}

// CapReached reports whether the opt-in replan cap is on and replans PlanDirectives
// already spend it.
func (p Params) CapReached(replans int) bool { return p.ReplanCap > 0 && replans >= p.ReplanCap }
