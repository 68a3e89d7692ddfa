package memory

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentspine/spine/contract"
)

// fakeReader answers Calibrate from fixed data, so the sorting is tested without a store.
type fakeReader struct {
	sops []contract.SOPRecord
	pot  contract.Potentials
	asks []string
}

func (f *fakeReader) QueryC(_ context.Context, space, entity string) ([]contract.SOPRecord, error) {
	f.asks = append(f.asks, "C "+space+" "+entity)
	return f.sops, nil
}

func (f *fakeReader) QueryMK(_ context.Context, space, entity string) (contract.Potentials, error) {
	f.asks = append(f.asks, "MK "+space+" "+entity)
	return f.pot, nil
}

func TestCalibrateSorts(t *testing.T) {
	sp := "intent:migrate_the_db"
	for _, tc := range []struct {
		name                      string
		action                    string
		mustNot, prefer, cautions []string // SOP IDs, "pot" for the potentials verdict
	}{
		{"avoid", contract.ActionAvoid, []string{"pot", "c1", "c3"}, []string{"c2"}, []string{"c0"}},
		{"exploit", contract.ActionExploit, []string{"c1", "c3"}, []string{"pot", "c2"}, []string{"c0"}},
		{"caution", contract.ActionCaution, []string{"c1", "c3"}, []string{"c2"}, []string{"pot", "c0"}},
		{"ignore", contract.ActionIgnore, []string{"c1", "c3"}, []string{"c2"}, []string{"c0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &fakeReader{
				sops: []contract.SOPRecord{
					{ID: "c3", Space: sp, Entity: EntityLocal, Sigma: -1, State: KindConstraint},
					{ID: "c2", Space: sp, Entity: EntityLocal, Sigma: 1, State: KindBestPractice},
					{ID: "c1", Space: sp, Entity: EntityLocal, Sigma: -1, State: KindConstraint},
					{ID: "c0", Space: sp, Entity: EntityLocal, Sigma: 0},
				},
				pot: contract.Potentials{Attention: 2, Decision: -1, Action: tc.action},
			}
			cal, err := Calibrate(context.Background(), r, []Pair{IntentPair("Migrate the DB schema to v2")})
			if err != nil {
				t.Fatal(err)
			}
			if len(cal.Pairs) != 1 || cal.Pairs[0].Space != sp || cal.Pairs[0].Entity != EntityLocal {
				t.Errorf("pairs %+v", cal.Pairs)
			}
			if want := []string{"C " + sp + " env:local", "MK " + sp + " env:local"}; !equalStrings(r.asks, want) {
				t.Errorf("queries %v, want %v", r.asks, want)
			}
			for _, set := range []struct {
				name string
				got  []CalibrationEntry
				want []string
			}{{"must_not", cal.MustNot, tc.mustNot}, {"should_prefer", cal.ShouldPrefer, tc.prefer}, {"caution", cal.Caution, tc.cautions}} {
				var ids []string
				for _, e := range set.got {
					if e.Source == SourcePotentials {
						ids = append(ids, "pot")
					} else {
						ids = append(ids, e.SOPID)
					}
				}
				if !equalStrings(ids, set.want) {
					t.Errorf("%s = %v, want %v", set.name, ids, set.want)
				}
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestCalibrateAgainstStore(t *testing.T) {
	e := newEnv(t, backendCases[1], nil)
	intent := "Rotate the TLS certificates"
	q := Quantum{State: "abandon", F: 0.95, Sigma: -1, K: 0.05}
	for i := 0; i < 6; i++ {
		e.write(TerminalMegram(intent, q, "cert tool hung"))
	}
	e.dream() // → a constraint
	cal, err := Calibrate(context.Background(), e.s.Reader(), []Pair{IntentPair(intent)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cal.MustNot) != 2 || cal.MustNot[0].Source != SourcePotentials || cal.MustNot[1].State != KindConstraint ||
		len(cal.ShouldPrefer) != 0 || len(cal.Caution) != 0 {
		t.Fatalf("calibration %+v", cal)
	}
	// The sets are data with stable JSON names; an unknown intent gives empty sets.
	cal, err = Calibrate(context.Background(), e.s.Reader(), []Pair{IntentPair("never seen before")})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(cal)
	if want := `{"pairs":[{"space":"intent:never_seen_before","entity":"env:local","potentials":{"attention":0,"decision":0,"action":"Ignore"}}],"must_not":[],"should_prefer":[],"caution":[]}`; string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
}

func TestGGSMegramHelpers(t *testing.T) {
	q := Quantum{State: "change_path", F: 0.3, Sigma: 0, K: 0.2}
	m := BlockedTargetMegram("go", "./cmd/spine", q, "build failed")
	want := contract.Megram{Level: contract.LevelM, Space: "tool:go", Entity: "path:./cmd/spine", Content: "build failed",
		State: "change_path", F: 0.3, Sigma: 0, K: 0.2}
	if m != want {
		t.Errorf("BlockedTargetMegram = %+v, want %+v", m, want)
	}
	m = TerminalMegram("Fix the flaky login test", Quantum{State: "success", F: 0.8, Sigma: 1, K: 0.05}, "done")
	if m.Space != "intent:fix_the_flaky" || m.Entity != EntityLocal || m.State != "success" || m.F != 0.8 || m.Level != contract.LevelM {
		t.Errorf("TerminalMegram = %+v", m)
	}
	if !m.CreatedAt.IsZero() || m.ID != "" {
		t.Errorf("helpers must leave ID and times to the store: %+v", m)
	}
}
