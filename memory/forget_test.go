package memory

import (
	"fmt"
	"math"
	"testing"
	"time"
)

// forgetRow is a quantization-matrix row as the forgetting tests write it.
type forgetRow struct {
	state       string
	f, sigma, k float64
}

var (
	rowRefine     = forgetRow{"refine", 0.1, 0.5, 0.5}
	rowChangePath = forgetRow{"change_path", 0.3, 0, 0.2}
	rowAbandon    = forgetRow{"abandon", 0.95, -1, 0.05}
)

// aged is one entry of a pair and how old it is when the pass runs.
type aged struct {
	row forgetRow
	age time.Duration
}

// pairAttention is Σ|f|·e^(−k·Δt) over entries, computed here independently of the store.
func pairAttention(es []aged) float64 {
	var sum float64
	for _, e := range es {
		sum += math.Abs(e.row.f) * math.Exp(-e.row.k*e.age.Hours()/24)
	}
	return sum
}

func entryAttention(e aged) float64 {
	return math.Abs(e.row.f) * math.Exp(-e.row.k*e.age.Hours()/24)
}

// TestForgettingReadsThePair: seed 000 §6e deletes a pair's M/K entries where the pair's
// live M_attention is below 0.1, whatever each entry weighs alone. Each case writes one
// pair, its entries aged as listed at the pass's (injected) clock, and checks both the
// potentials computed here and what the pass did: all entries forgotten or all kept.
func TestForgettingReadsThePair(t *testing.T) {
	// 13.54 days is where five change_path entries (1.5·e^(−0.2·Δt)) cross 0.1.
	five := func(age time.Duration) []aged {
		es := make([]aged, 5)
		for i := range es {
			es[i] = aged{rowChangePath, age}
		}
		return es
	}
	for _, tc := range []struct {
		name    string
		entries []aged
		grace   time.Duration
		sumLo   float64 // the pair's attention lies in [sumLo, sumHi)
		sumHi   float64
		eachLo  bool // every entry alone is below 0.1
		kept    bool
	}{
		{name: "five change_path, pair just above 0.1, each entry ≈ 0.02", entries: five(dayDuration(13.5)),
			sumLo: 0.1, sumHi: 0.101, eachLo: true, kept: true},
		{name: "five change_path, pair just below 0.1", entries: five(dayDuration(13.55)),
			sumLo: 0.099, sumHi: 0.1, eachLo: true, kept: false},
		{name: "five entries of mixed ages summing to 0.218, each below 0.1: kept whole",
			entries: []aged{{rowChangePath, dayDuration(10)}, {rowChangePath, dayDuration(10)}, {rowRefine, dayDuration(3)},
				{rowRefine, dayDuration(0.5)}, {rowAbandon, dayDuration(65)}},
			sumLo: 0.21, sumHi: 0.22, eachLo: true, kept: true},
		{name: "a fresh refine alone is under 0.1 at once: forgotten (no grace, the seed)",
			entries: []aged{{rowRefine, 4 * time.Second}}, sumLo: 0.0999, sumHi: 0.1, eachLo: true, kept: false},
		{name: "the same refine within an opt-in 36 h grace: kept",
			entries: []aged{{rowRefine, 4 * time.Second}}, grace: 36 * time.Hour, sumLo: 0.0999, sumHi: 0.1, eachLo: true, kept: true},
		{name: "a pair under 0.1 with a young entry and an old one: the newest entry decides the grace",
			entries: []aged{{rowChangePath, dayDuration(20)}, {rowRefine, 30 * time.Hour}}, grace: 36 * time.Hour,
			sumLo: 0.05, sumHi: 0.1, eachLo: true, kept: true},
		{name: "the same pair once its newest entry is past the grace: forgotten whole",
			entries: []aged{{rowChangePath, dayDuration(20)}, {rowRefine, 37 * time.Hour}}, grace: 36 * time.Hour,
			sumLo: 0.0, sumHi: 0.1, eachLo: true, kept: false},
		{name: "one strong entry carries weak ones", entries: []aged{{rowAbandon, dayDuration(30)}, {rowRefine, dayDuration(10)}},
			sumLo: 0.2, sumHi: 0.22, kept: true},
	} {
		for _, bc := range backendCases {
			t.Run(fmt.Sprintf("%s/%s", bc.name, tc.name), func(t *testing.T) {
				sum := pairAttention(tc.entries)
				if sum < tc.sumLo || sum >= tc.sumHi {
					t.Fatalf("case set-up: pair attention %v, want in [%v, %v)", sum, tc.sumLo, tc.sumHi)
				}
				for _, e := range tc.entries {
					if tc.eachLo && entryAttention(e) >= 0.1 {
						t.Fatalf("case set-up: entry %+v has attention %v, want each below 0.1", e, entryAttention(e))
					}
				}
				e := newEnv(t, bc, func(o *Options) {
					o.Dream = DefaultDreamConfig()
					o.Dream.ForgetGrace = tc.grace
				})
				// Write the oldest first, advancing the clock so that at the pass each
				// entry has its age.
				oldest := time.Duration(0)
				for _, a := range tc.entries {
					oldest = max(oldest, a.age)
				}
				start := e.clock.Now()
				for _, a := range sortedByAgeDesc(tc.entries) {
					e.clock.Advance(start.Add(oldest - a.age).Sub(e.clock.Now()))
					e.write(megram("tool:sed", "path:config.yaml", a.row.state, a.row.f, a.row.sigma, a.row.k))
				}
				e.clock.Advance(start.Add(oldest).Sub(e.clock.Now()))
				if pot := e.mk("tool:sed", "path:config.yaml"); math.Abs(pot.Attention-sum) > 1e-9 {
					t.Fatalf("store's M_attention %v, computed %v", pot.Attention, sum)
				}
				rep := e.dream()
				evs := e.rec.takeEvents()
				left := e.mk("tool:sed", "path:config.yaml")
				if tc.kept {
					if rep.Forgotten != 0 || len(evs) != 0 || math.Abs(left.Attention-sum) > 1e-9 {
						t.Fatalf("forgotten %d, events %+v, attention left %v; want the pair kept whole", rep.Forgotten, evs, left.Attention)
					}
				} else {
					if rep.Forgotten != len(tc.entries) || len(evs) != len(tc.entries) || left.Attention != 0 {
						t.Fatalf("forgotten %d, events %+v, attention left %v; want all %d entries forgotten", rep.Forgotten, evs, left.Attention, len(tc.entries))
					}
					for _, ev := range evs {
						if ev.Kind != EventForgotten || math.Abs(ev.Attention-sum) > 1e-9 {
							t.Fatalf("event %+v; want forgotten with the pair's attention %v", ev, sum)
						}
					}
				}
				e.noErrors()
			})
		}
	}
}

func sortedByAgeDesc(es []aged) []aged {
	out := append([]aged(nil), es...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].age > out[j-1].age; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestForgettingPairsApart: a pass decides each pair on its own sum; a pair above the
// threshold next to one below keeps all its entries.
func TestForgettingPairsApart(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			e := newEnv(t, bc, nil)
			for i := 0; i < 5; i++ {
				e.write(megram("tool:sed", "path:a", "change_path", 0.3, 0, 0.2))
			}
			e.write(megram("tool:sed", "path:b", "change_path", 0.3, 0, 0.2))
			e.clock.Advance(dayDuration(10)) // a: 1.5·e^(−2) = 0.203; b: 0.3·e^(−2) = 0.041
			rep := e.dream()
			if rep.Forgotten != 1 {
				t.Fatalf("forgotten %d, want the one entry of path:b", rep.Forgotten)
			}
			if a, b := e.mk("tool:sed", "path:a"), e.mk("tool:sed", "path:b"); !near(a.Attention, 1.5*math.Exp(-2)) || b.Attention != 0 {
				t.Fatalf("attention left a %v, b %v", a.Attention, b.Attention)
			}
			e.noErrors()
		})
	}
}

func TestForgetGraceValidated(t *testing.T) {
	c := DefaultDreamConfig()
	c.ForgetGrace = -time.Second
	if err := c.Validate(); err == nil || err.Error() != "memory: dream config: forget_grace -1s, want ≥ 0" {
		t.Errorf("negative grace: %v", err)
	}
	if c := DefaultDreamConfig(); c.ForgetGrace != 0 || c.ForgetAttention != 0.1 {
		t.Errorf("defaults: grace %v, threshold %v; want the seed's rule: no grace, 0.1", c.ForgetGrace, c.ForgetAttention)
	}
}
