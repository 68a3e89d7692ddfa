package audit

import (
	"strings"
	"testing"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	bad := Config{ThrashingRun: 1, StallRun: 0, MaxCorrections: -1, ReplanCap: -2, Theta: 0, TimeBudgetMS: 0}
	err := bad.Validate()
	for _, want := range []string{
		"thrashing run 1: want at least 2",
		"stall run 0: want at least 2",
		"max corrections -1: want 0 or more",
		"replan cap -2: want 0 (off) or more",
		"theta 0: want a number in (0, 1]",
		"time budget 0 ms: want a positive number",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Validate = %v, want it to contain %q", err, want)
		}
	}
	if _, err := New(bad); err == nil {
		t.Error("New accepted an invalid config")
	}
	a, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if a.Config() != DefaultConfig() {
		t.Errorf("Config() = %+v, want the defaults it was made with", a.Config())
	}
}

func TestEndIsOnce(t *testing.T) {
	var s stream
	s.manifest("t", "a")
	a, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	if got := a.Observe(s.msgs[0]); len(got) != 0 {
		t.Fatalf("Observe = %v, want nothing yet", got)
	}
	if got := a.End(); len(got) != 1 || got[0].Kind != KindFaninIncomplete {
		t.Fatalf("End = %v, want the open manifest reported", got)
	}
	if got := a.End(); got != nil {
		t.Errorf("second End = %v, want nothing", got)
	}
	if got := a.Findings(); len(got) != 1 {
		t.Errorf("Findings = %v, want the one finding", got)
	}
}

// paramMap is a rule set's params, as ParamSource.
type paramMap map[string]any

func (m paramMap) Param(name string) (any, bool) { v, ok := m[name]; return v, ok }

// The Auditor's default budget is the one the shipped GGS rules enforce, and an edited
// rule set's budget carries over; a budget the rules cannot give is an error naming it.
func TestWithRuleBudget(t *testing.T) {
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DefaultConfig().WithRuleBudget(rs)
	if err != nil || got != DefaultConfig() {
		t.Errorf("shipped rules: %+v, %v; want the defaults %+v", got, err, DefaultConfig())
	}
	got, err = DefaultConfig().WithRuleBudget(paramMap{"replan_cap": 5.0, "theta": 0.7, "time_budget_ms": 60000.0})
	if want := (Config{ThrashingRun: 2, StallRun: 3, MaxCorrections: 2, ReplanCap: 5, Theta: 0.7, TimeBudgetMS: 60000}); err != nil || got != want {
		t.Errorf("edited budget: %+v, %v; want %+v", got, err, want)
	}
	for _, tc := range []struct {
		params paramMap
		want   string
	}{
		{paramMap{"time_budget_ms": 1.0, "theta": 0.8}, "audit config: the rules declare no param replan_cap"},
		{paramMap{"replan_cap": 3.0, "theta": 0.8}, "audit config: the rules declare no param time_budget_ms"},
		{paramMap{"replan_cap": 3.0, "time_budget_ms": 1.0}, "audit config: the rules declare no param theta"},
		{paramMap{"replan_cap": 2.5, "time_budget_ms": 1.0, "theta": 0.8}, "audit config: param replan_cap: want a whole number, got float64 2.5"},
		{paramMap{"replan_cap": "3", "time_budget_ms": 1.0, "theta": 0.8}, "audit config: param replan_cap: want a whole number, got string 3"},
		{paramMap{"replan_cap": 3.0, "time_budget_ms": 1e300, "theta": 0.8}, "audit config: param time_budget_ms: want a whole number, got float64 1e+300"},
		{paramMap{"replan_cap": 3.0, "time_budget_ms": 1.0, "theta": "high"}, "audit config: param theta: want a number, got string high"},
		{paramMap{"replan_cap": -1.0, "time_budget_ms": 1.0, "theta": 0.8}, "audit config: replan cap -1: want 0 (off) or more"},
		{paramMap{"replan_cap": 3, "time_budget_ms": 0, "theta": 0.8}, "audit config: time budget 0 ms: want a positive number of milliseconds"},
		{paramMap{"replan_cap": 3, "time_budget_ms": 1, "theta": 1.5}, "audit config: theta 1.5: want a number in (0, 1]"},
	} {
		if _, err := DefaultConfig().WithRuleBudget(tc.params); err == nil || err.Error() != tc.want {
			t.Errorf("%v: got %v, want %q", tc.params, err, tc.want)
		}
	}
}
