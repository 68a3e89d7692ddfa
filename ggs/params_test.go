package ggs

import (
	"strings"
	"testing"
)

// seedDefaults is the seed's hyperparameter table (v0.8 defaults), the spec that
// rules/ggs.yaml must carry, and the project's additions: max_fault_retries, and the
// replan cap, off (0) as the seed's table has none.
var seedDefaults = Params{
	Alpha: 0.6, Beta: 0.3, Lambda: 0.4, W1: 0.6, W2: 0.4,
	Epsilon: 0.1, Delta: 0.3, Rho: 0.5, Theta: 0.8,
	TimeBudgetMS: 300000, MaxReplans: 3, Law2Kill: 2, MaxFaultRetries: 1,
}

func TestRuleFileCarriesSeedDefaults(t *testing.T) {
	if got := loadParams(t); got != seedDefaults {
		t.Fatalf("params of %s:\n got %+v\nwant %+v", rulesPath, got, seedDefaults)
	}
	rs := loadRules(t)
	if len(rs.Params()) != len(HostParams) {
		t.Errorf("%s has %d params, want exactly the %d of the table and the caution policy", rulesPath, len(rs.Params()), len(HostParams))
	}
	if v, _ := rs.Param(ParamCaution); v != CautionRefuse {
		t.Errorf("%s: caution %v, want %s", rulesPath, v, CautionRefuse)
	}
}

type mapSource map[string]any

func (m mapSource) Param(name string) (any, bool) { v, ok := m[name]; return v, ok }

func TestParamsFromErrors(t *testing.T) {
	valid := func() mapSource {
		return mapSource{
			"alpha": 0.6, "beta": 0.3, "lambda": 0.4, "w1": 0.6, "w2": 0.4, "epsilon": 0.1,
			"delta": 0.3, "rho": 0.5, "theta": 0.8, "time_budget_ms": 300000.0,
			"max_replans": 3.0, "replan_cap": 0, "law2_kill": 2, "max_fault_retries": 1,
		}
	}
	if p, err := ParamsFrom(valid()); err != nil || p != seedDefaults {
		t.Fatalf("valid params: %+v, %v", p, err)
	}
	for _, tc := range []struct {
		name  string
		value any // nil removes the param
		want  string
	}{
		{"rho", nil, "no param rho"},
		{"theta", "high", "param theta: want a number, got string high"},
		{"max_replans", 2.5, "param max_replans: want a whole number, got 2.5"},
		{"max_replans", 0.0, "param max_replans: want >= 1, got 0"},
		{"replan_cap", -1, "param replan_cap: want 0 (off) or more, got -1"},
		{"replan_cap", 1.5, "param replan_cap: want a whole number, got 1.5"},
		{"replan_cap", nil, "no param replan_cap"},
		{"time_budget_ms", 0.0, "param time_budget_ms: want > 0, got 0"},
		{"law2_kill", 0.0, "param law2_kill: want >= 1, got 0"},
		{"max_fault_retries", -1, "param max_fault_retries: want >= 0, got -1"},
		{"max_fault_retries", nil, "no param max_fault_retries"},
		{"alpha", true, "param alpha: want a number, got bool true"},
		{"lambda", 1e300, "param lambda: want a number between -1e12 and 1e12, got 1e+300"},
	} {
		src := valid()
		if tc.value == nil {
			delete(src, tc.name)
		} else {
			src[tc.name] = tc.value
		}
		_, err := ParamsFrom(src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s=%v: error %v, want it to contain %q", tc.name, tc.value, err, tc.want)
		}
	}
}
