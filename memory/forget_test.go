package memory

import (
	"fmt"
	"testing"
	"time"
)

// TestForgettingGrace: physical forgetting resolves the seed's threshold (0.1) against
// the quantization matrix's refine row (f = 0.1): a fresh refine Megram, whose attention
// is below 0.1 from its first instant, survives the passes of its grace period and is
// forgotten at the first pass after it; rows above the threshold are forgotten by their
// decay alone; and with the grace turned off the old rule deletes the fresh Megram.
func TestForgettingGrace(t *testing.T) {
	type row struct {
		state       string
		f, sigma, k float64
	}
	refine := row{"refine", 0.1, 0.5, 0.5}
	changePath := row{"change_path", 0.3, 0, 0.2}
	for _, tc := range []struct {
		name  string
		row   row
		age   time.Duration
		grace time.Duration // -1: the default config
		kept  bool
	}{
		{"refine 4 s old, the first pass after its task", refine, 4 * time.Second, -1, true},
		{"refine 35 h old, below 0.1 but within the grace", refine, 35 * time.Hour, -1, true},
		{"refine 36 h old, at the end of the grace", refine, 36 * time.Hour, -1, false},
		{"refine 3 days old, decayed well below", refine, 3 * Day, -1, false},
		{"change_path 5 days old, still above 0.1", changePath, 5 * Day, -1, true},
		{"change_path 6 days old, decayed below 0.1", changePath, 6 * Day, -1, false},
		{"refine 4 s old, grace off: the seed's threshold alone", refine, 4 * time.Second, 0, false},
	} {
		for _, bc := range backendCases {
			t.Run(fmt.Sprintf("%s/%s", bc.name, tc.name), func(t *testing.T) {
				e := newEnv(t, bc, func(o *Options) {
					if tc.grace >= 0 {
						o.Dream = DefaultDreamConfig()
						o.Dream.ForgetGrace = tc.grace
					}
				})
				e.write(megram("tool:sed", "path:config.yaml", tc.row.state, tc.row.f, tc.row.sigma, tc.row.k))
				e.clock.Advance(tc.age)
				rep := e.dream()
				evs := e.rec.takeEvents()
				pot := e.mk("tool:sed", "path:config.yaml")
				if tc.kept {
					if rep.Forgotten != 0 || len(evs) != 0 || pot.Attention == 0 {
						t.Fatalf("forgotten %d, events %+v, attention left %v; want the Megram kept", rep.Forgotten, evs, pot.Attention)
					}
				} else {
					if rep.Forgotten != 1 || len(evs) != 1 || evs[0].Kind != EventForgotten || evs[0].ID != "m000000000001" || pot.Attention != 0 {
						t.Fatalf("forgotten %d, events %+v, attention left %v; want m000000000001 forgotten", rep.Forgotten, evs, pot.Attention)
					}
				}
				e.noErrors()
			})
		}
	}
}

func TestForgetGraceValidated(t *testing.T) {
	c := DefaultDreamConfig()
	c.ForgetGrace = -time.Second
	if err := c.Validate(); err == nil || err.Error() != "memory: dream config: forget_grace -1s, want ≥ 0" {
		t.Errorf("negative grace: %v", err)
	}
	if c := DefaultDreamConfig(); c.ForgetGrace != 36*time.Hour || c.ForgetAttention != 0.1 {
		t.Errorf("defaults: grace %v, threshold %v; want 36h and the seed's 0.1", c.ForgetGrace, c.ForgetAttention)
	}
}
