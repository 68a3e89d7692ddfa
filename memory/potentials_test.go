package memory

import (
	"math"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

func TestDecayHalfLives(t *testing.T) {
	// The quantization matrix's decay constants and the half-lives they stand for.
	for _, tc := range []struct {
		k        float64
		halfLife float64 // days
	}{
		{0.05, 13.86}, {0.2, 3.47}, {0.5, 1.39},
	} {
		exact := time.Duration(math.Ln2 / tc.k * float64(Day))
		if got := Decay(tc.k, t0, t0.Add(exact)); math.Abs(got-0.5) > 1e-9 {
			t.Errorf("k=%v: decay after ln2/k days = %v, want 0.5", tc.k, got)
		}
		approx := time.Duration(tc.halfLife * float64(Day))
		if got := Decay(tc.k, t0, t0.Add(approx)); math.Abs(got-0.5) > 0.005 {
			t.Errorf("k=%v: decay after %.2f days = %v, want ≈ 0.5", tc.k, tc.halfLife, got)
		}
	}
	if got := Decay(0.05, t0, t0.Add(14*Day)); math.Abs(got-math.Exp(-0.7)) > 1e-12 {
		t.Errorf("14 days at k=0.05: %v, want e^-0.7", got)
	}
	if got := Decay(0, t0, t0.Add(1000*Day)); got != 1 {
		t.Errorf("k=0 is timeless, got %v", got)
	}
	if got := Decay(0.5, t0.Add(Day), t0); got != 1 {
		t.Errorf("an entry from the future counts as fresh, got %v", got)
	}
}

func TestActionTable(t *testing.T) {
	th := DefaultActionThresholds
	for _, tc := range []struct {
		att, dec float64
		want     string
	}{
		{0, 0, contract.ActionIgnore},
		{0.49, 5, contract.ActionIgnore},
		{0.49, -5, contract.ActionIgnore},
		{0.5, 0.21, contract.ActionExploit},
		{0.5, 0.2, contract.ActionCaution},
		{0.5, -0.2, contract.ActionCaution},
		{0.5, 0, contract.ActionCaution},
		{0.5, -0.21, contract.ActionAvoid},
		{10, 9, contract.ActionExploit},
		{10, -9, contract.ActionAvoid},
	} {
		if got := th.Action(tc.att, tc.dec); got != tc.want {
			t.Errorf("Action(%v, %v) = %s, want %s", tc.att, tc.dec, got, tc.want)
		}
	}
}

func TestContributionSigns(t *testing.T) {
	// abandon: f 0.95, σ −1 → attention positive, decision negative, both fresh.
	att, dec := Contribution(0.95, -1, 0.05, t0, t0)
	if !near(att, 0.95) || !near(dec, -0.95) {
		t.Errorf("abandon fresh: (%v, %v), want (0.95, -0.95)", att, dec)
	}
	// change_path: σ 0 draws attention but no decision.
	att, dec = Contribution(0.3, 0, 0.2, t0, t0)
	if !near(att, 0.3) || dec != 0 {
		t.Errorf("change_path fresh: (%v, %v), want (0.3, 0)", att, dec)
	}
}
