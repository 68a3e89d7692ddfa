package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/expr-lang/expr/vm"

	"github.com/agentspine/spine/internal/rulegen"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// matcherFuzzSeeds are run by TestMatcherMatchesVMSeeds and seed FuzzMatcherMatchesVM.
const matcherFuzzSeeds = 300

// FuzzMatcherMatchesVM generates a rule set from the seed (internal/rulegen.Wide) and
// random facts, NaN, ±Inf, ints beyond 2^53 and absent facts among them, and checks
// every rule's outcome in a cycle against expr's VM on the same facts: the same value,
// or the same error.
func FuzzMatcherMatchesVM(f *testing.F) {
	for seed := uint64(0); seed < 20; seed++ {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, seed uint64) { checkSeed(t, seed) })
}

// TestMatcherMatchesVMSeeds runs the fuzz check over pinned seeds.
func TestMatcherMatchesVMSeeds(t *testing.T) {
	n := uint64(matcherFuzzSeeds)
	if testing.Short() {
		n = 50
	}
	for seed := uint64(0); seed < n; seed++ {
		checkSeed(t, seed)
	}
}

func checkSeed(t *testing.T, seed uint64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x6d61746368))
	src := rulegen.Wide(rng)
	rs, err := LoadRules("wide.yaml", []byte(src))
	if err != nil {
		t.Fatalf("seed %d: the generated rule set does not load: %v\n%s", seed, err, src)
	}
	var machine vm.VM
	for trial := 0; trial < 40; trial++ {
		s := NewSession(rs, WithTrace(trace.Discard), WithMaxFirings(1<<30))
		for _, k := range rs.Kinds()[2:] {
			if rng.IntN(4) == 0 {
				continue // absent
			}
			// The fact is stored with legal values, then its fields overwritten with any
			// value at all: the matcher must read what expr reads, whatever working
			// memory would have let in.
			if err := s.Set(k.Name, "", ruleset.Fields{}); err != nil {
				t.Fatal(err)
			}
			kf := &s.wm.kinds[k.Index()]
			for i, fld := range k.Fields {
				dst := kf.live.fields[i]
				switch v := rulegen.Value(rng, string(fld.Type)).(type) {
				case int64:
					dst.SetInt(v)
				default:
					dst.Set(reflect.ValueOf(v))
				}
			}
			s.wm.refreshInput(k)
		}
		type outcome struct {
			result, err string
		}
		want := make([]outcome, len(rs.Order()))
		for i, r := range rs.Order() {
			out, err := machine.Run(r.Program(), s.wm.envValue())
			switch {
			case err != nil:
				want[i] = outcome{ResultError, err.Error()}
			case out == true:
				want[i] = outcome{ResultTrue, ""}
			default:
				want[i] = outcome{ResultFalse, ""}
			}
		}
		cyc, err := s.Cycle(context.Background())
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for i, ev := range cyc.Evaluated {
			if ev.Result != want[i].result || ev.Error != want[i].err {
				r := rs.Order()[i]
				t.Fatalf("seed %d (go test -run TestMatcherMatchesVMSeeds, or the fuzz seed %d): rule %s (%s): the cycle gives %s %q, expr's VM %s %q\nfacts: %s\nrule set:\n%s",
					seed, seed, r.Name, r.When, ev.Result, ev.Error, want[i].result, want[i].err, rawFacts(s), src)
			}
		}
	}
}

// rawFacts prints the singleton facts' fields as Go values, NaN and ±Inf included.
func rawFacts(s *Session) string {
	out := ""
	for _, k := range s.rs.Kinds()[2:] {
		kf := &s.wm.kinds[k.Index()]
		if !kf.has {
			out += k.Name + " absent; "
			continue
		}
		out += k.Name + " {"
		for i, f := range k.Fields {
			out += " " + f.Name + ": " + fmtValue(kf.live.fields[i])
		}
		out += " }; "
	}
	return out
}

func fmtValue(v reflect.Value) string {
	if v.Kind() == reflect.String {
		return strconv.Quote(v.String())
	}
	return fmt.Sprint(v.Interface())
}
