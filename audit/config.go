package audit

import (
	"errors"
	"fmt"
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
	// MaxReplans is how many PlanDirectives a task may receive; one more is a
	// budget_overrun. Default 3 (GGS's maxReplans).
	MaxReplans int
	// TimeBudgetMS is a task's time budget; an elapsed_ms beyond it, as R4b reports it,
	// is a budget_overrun. Default 300000 (GGS's time_budget_ms, 5 minutes).
	TimeBudgetMS int64
}

// DefaultConfig returns the documented defaults.
func DefaultConfig() Config {
	return Config{ThrashingRun: 2, StallRun: 3, MaxCorrections: 2, MaxReplans: 3, TimeBudgetMS: 300_000}
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
	if c.MaxReplans < 0 {
		errs = append(errs, fmt.Errorf("max replans %d: want 0 or more", c.MaxReplans))
	}
	if c.TimeBudgetMS <= 0 {
		errs = append(errs, fmt.Errorf("time budget %d ms: want a positive number of milliseconds", c.TimeBudgetMS))
	}
	if len(errs) > 0 {
		return fmt.Errorf("audit config: %w", errors.Join(errs...))
	}
	return nil
}
