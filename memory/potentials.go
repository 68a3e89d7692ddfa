package memory

import (
	"math"
	"time"

	"github.com/agentspine/spine/contract"
)

// Day is the unit of Δt in the decay exp(−k·Δt_days).
const Day = 24 * time.Hour

// ActionThresholds turn potentials into an action: below Attention the pair is ignored;
// otherwise a decision above +Decision is Exploit, below −Decision Avoid, else Caution.
type ActionThresholds struct {
	Attention float64 // 0.5
	Decision  float64 // 0.2
}

// DefaultActionThresholds are the values of the MKCT action table.
var DefaultActionThresholds = ActionThresholds{Attention: 0.5, Decision: 0.2}

// Action maps (M_attention, M_decision) to Exploit / Avoid / Caution / Ignore.
func (t ActionThresholds) Action(attention, decision float64) string {
	switch {
	case attention < t.Attention:
		return contract.ActionIgnore
	case decision > t.Decision:
		return contract.ActionExploit
	case decision < -t.Decision:
		return contract.ActionAvoid
	default:
		return contract.ActionCaution
	}
}

// Decay is exp(−k·Δt_days) for an entry whose decay clock started at ref. An entry
// stamped in the future (clock skew between writers) counts as fresh, never above 1.
func Decay(k float64, ref, now time.Time) float64 {
	dt := now.Sub(ref)
	if dt <= 0 || k == 0 {
		return 1
	}
	return math.Exp(-k * dt.Hours() / 24)
}

// Contribution is one entry's share of the two channels: |f|·decay and σ·f·decay.
func Contribution(f, sigma, k float64, ref, now time.Time) (attention, decision float64) {
	d := Decay(k, ref, now)
	return math.Abs(f) * d, sigma * f * d
}

// accumulator sums contributions of M/K entries for one tag pair.
type accumulator struct {
	attention, decision float64
	entries             int
}

func (a *accumulator) add(s summary, now time.Time) {
	att, dec := Contribution(s.F, s.Sigma, s.K, s.Ref, now)
	a.attention += att
	a.decision += dec
	a.entries++
}

func (a accumulator) potentials(t ActionThresholds) contract.Potentials {
	return contract.Potentials{
		Attention: a.attention,
		Decision:  a.decision,
		Action:    t.Action(a.attention, a.decision),
	}
}

// countsInPotentials reports whether entries of a level feed M_attention / M_decision:
// only the episodic layers M and K do; C and T are served as SOPs, not summed.
func countsInPotentials(level string) bool {
	return level == contract.LevelM || level == contract.LevelK
}
