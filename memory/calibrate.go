package memory

import (
	"context"
	"sort"

	"github.com/agentspine/spine/contract"
)

// Calibration sources.
const (
	SourceSOP        = "sop"        // a live C entry (QueryC)
	SourcePotentials = "potentials" // the pair's live M/K potentials (QueryMK)
)

// CalibrationEntry is one planning constraint as data; the planner words it.
type CalibrationEntry struct {
	Source string `json:"source"` // SourceSOP or SourcePotentials
	// SOPID is the C entry's ID for a SourceSOP entry.
	SOPID   string  `json:"sop_id,omitempty"`
	Space   string  `json:"space"`
	Entity  string  `json:"entity"`
	Content string  `json:"content,omitempty"`
	State   string  `json:"state,omitempty"`
	Sigma   float64 `json:"sigma,omitempty"`
	// Attention and Decision are the pair's live potentials (for both sources).
	Attention float64 `json:"attention"`
	Decision  float64 `json:"decision"`
}

// Calibration is what memory says about one intent before a plan: the MUST NOT set
// (constraints and an Avoid verdict), the SHOULD PREFER set (best practices and an Exploit
// verdict) and the entries to treat with caution (a Caution verdict, or a C entry with
// σ = 0). An Ignore verdict adds nothing. Each slice is sorted: the potentials entry
// first, then SOPs by ID.
type Calibration struct {
	Space        string              `json:"space"`
	Entity       string              `json:"entity"`
	Potentials   contract.Potentials `json:"potentials"`
	MustNot      []CalibrationEntry  `json:"must_not"`
	ShouldPrefer []CalibrationEntry  `json:"should_prefer"`
	Caution      []CalibrationEntry  `json:"caution"`
}

// Calibrate queries the intent's tag pair (intent:<slug>, env:local) with QueryC and
// QueryMK and sorts the answers into the three sets.
func Calibrate(ctx context.Context, r Reader, intent string) (Calibration, error) {
	return CalibratePair(ctx, r, IntentSpace(intent), EntityLocal)
}

// CalibratePair is Calibrate for an explicit tag pair.
func CalibratePair(ctx context.Context, r Reader, space, entity string) (Calibration, error) {
	sops, err := r.QueryC(ctx, space, entity)
	if err != nil {
		return Calibration{}, err
	}
	pot, err := r.QueryMK(ctx, space, entity)
	if err != nil {
		return Calibration{}, err
	}
	cal := Calibration{Space: space, Entity: entity, Potentials: pot,
		MustNot: []CalibrationEntry{}, ShouldPrefer: []CalibrationEntry{}, Caution: []CalibrationEntry{}}
	verdict := CalibrationEntry{Source: SourcePotentials, Space: space, Entity: entity,
		Attention: pot.Attention, Decision: pot.Decision}
	switch pot.Action {
	case contract.ActionAvoid:
		cal.MustNot = append(cal.MustNot, verdict)
	case contract.ActionExploit:
		cal.ShouldPrefer = append(cal.ShouldPrefer, verdict)
	case contract.ActionCaution:
		cal.Caution = append(cal.Caution, verdict)
	}
	sort.Slice(sops, func(i, j int) bool { return sops[i].ID < sops[j].ID })
	for _, sop := range sops {
		e := CalibrationEntry{Source: SourceSOP, SOPID: sop.ID, Space: sop.Space, Entity: sop.Entity,
			Content: sop.Content, State: sop.State, Sigma: sop.Sigma,
			Attention: pot.Attention, Decision: pot.Decision}
		switch {
		case sop.Sigma < 0:
			cal.MustNot = append(cal.MustNot, e)
		case sop.Sigma > 0:
			cal.ShouldPrefer = append(cal.ShouldPrefer, e)
		default:
			cal.Caution = append(cal.Caution, e)
		}
	}
	return cal, nil
}
