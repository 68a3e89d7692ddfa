package audit

import (
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("defaults: %v", err)
	}
	bad := Config{ThrashingRun: 1, StallRun: 0, MaxCorrections: -1, MaxReplans: -2, TimeBudgetMS: 0}
	err := bad.Validate()
	for _, want := range []string{
		"thrashing run 1: want at least 2",
		"stall run 0: want at least 2",
		"max corrections -1: want 0 or more",
		"max replans -2: want 0 or more",
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
