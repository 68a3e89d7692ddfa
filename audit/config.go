package audit

import (
	"errors"
	"fmt"
	"math"
)

// Config holds the operator's thresholds. Start from DefaultConfig and override.
type Config struct {
	// ThrashingRun is how many consecutive break_symmetry PlanDirectives of one task, D
	// not decreasing from one to the next, make ggs_thrashing. Default 2, at least 2.
	ThrashingRun int
	// StallRun is how many consecutive PlanDirectives of one task, L not decreasing from
	// one to the next, make replanning_without_improvement. Default 3, at least 2.
	StallRun int
	// MaxCorrections is R4a's retry budget per subtask: more CorrectionSignals, more than
	// MaxCorrections+1 attempts in a gap_trajectory, or a correction_count above
	// MaxCorrections per reported subtask make excessive_retries. Default 2 (the role
	// definitions' fixed retry count).
	MaxCorrections int
	// ReplanCap follows GGS's opt-in replan cap (the param replan_cap): when 1 or more, a
	// task may receive that many PlanDirectives and one more is a budget_overrun. At 0, the
	// default and seed 000's table, the count is not capped: GGS stops a task for its
	// budget when Ω reaches θ, so only a PlanDirective issued at Ω ≥ Theta is one.
	ReplanCap int
	// Theta is GGS's θ: a PlanDirective whose loss has Ω ≥ Theta was issued past the
	// budget, a budget_overrun whatever ReplanCap. Default 0.8 (the seed's θ).
	Theta float64
	// TimeBudgetMS is a task's time budget; an elapsed_ms beyond it, as R4b reports it,
	// is a budget_overrun. Default 300000 (GGS's time_budget_ms, 5 minutes).
	TimeBudgetMS int64
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{ThrashingRun: 2, StallRun: 3, MaxCorrections: 2, ReplanCap: 0, Theta: 0.8, TimeBudgetMS: 300_000}
}

// ParamSource looks up a named param of a loaded rule set (*ruleset.RuleSet satisfies it).
type ParamSource interface {
	Param(name string) (any, bool)
}

// WithRuleBudget returns c with ReplanCap, Theta and TimeBudgetMS taken from the params
// replan_cap, theta and time_budget_ms of the GGS rule set a run obeys, so that the
// Auditor counts the budget the run's rules enforce also when the operator edited them.
// A param that is absent or of the wrong kind is an error naming it; c is fixed when the
// Auditor is made, as ever.
func (c Config) WithRuleBudget(src ParamSource) (Config, error) {
	for _, f := range []struct {
		name string
		set  func(int64)
	}{
		{"replan_cap", func(n int64) { c.ReplanCap = int(n) }},
		{"time_budget_ms", func(n int64) { c.TimeBudgetMS = n }},
	} {
		v, ok := src.Param(f.name)
		if !ok {
			return c, fmt.Errorf("audit config: the rules declare no param %s", f.name)
		}
		n, ok := wholeNumber(v)
		if !ok {
			return c, fmt.Errorf("audit config: param %s: want a whole number, got %T %v", f.name, v, v)
		}
		f.set(n)
	}
	v, ok := src.Param("theta")
	if !ok {
		return c, fmt.Errorf("audit config: the rules declare no param theta")
	}
	switch n := v.(type) {
	case float64:
		c.Theta = n
	case int:
		c.Theta = float64(n)
	case int64:
		c.Theta = float64(n)
	default:
		return c, fmt.Errorf("audit config: param theta: want a number, got %T %v", v, v)
	}
	return c, c.Validate()
}

// wholeNumber reads an integral param, within ±2⁵³ so that a float holds it exactly.
func wholeNumber(v any) (int64, bool) {
	const limit = 1 << 53
	switch n := v.(type) {
	case int:
		return int64(n), n > -limit && n < limit
	case int64:
		return n, n > -limit && n < limit
	case float64:
		if n != math.Trunc(n) || math.Abs(n) >= limit {
			return 0, false
		}
		return int64(n), true
	}
	return 0, false
}

// Validate reports every threshold that cannot be used.
func (c Config) Validate() error {
	var errs []error
	if c.ThrashingRun < 2 {
		errs = append(errs, fmt.Errorf("thrashing run %d: want at least 2 consecutive break_symmetry directives", c.ThrashingRun))
	}
	if c.StallRun < 2 {
		errs = append(errs, fmt.Errorf("stall run %d: want at least 2 consecutive PlanDirectives", c.StallRun))
	}
	if c.MaxCorrections < 0 {
		errs = append(errs, fmt.Errorf("max corrections %d: want 0 or more", c.MaxCorrections))
	}
	if c.ReplanCap < 0 {
		errs = append(errs, fmt.Errorf("replan cap %d: want 0 (off) or more", c.ReplanCap))
	}
	if math.IsNaN(c.Theta) || c.Theta <= 0 || c.Theta > 1 {
		errs = append(errs, fmt.Errorf("theta %v: want a number in (0, 1]", c.Theta))
	}
	if c.TimeBudgetMS <= 0 {
		errs = append(errs, fmt.Errorf("time budget %d ms: want a positive number of milliseconds", c.TimeBudgetMS))
	}
	if len(errs) > 0 {
		return fmt.Errorf("audit config: %w", errors.Join(errs...))
	}
	return nil
}
