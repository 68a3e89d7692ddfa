package memory

import (
	"context"
	"errors"
	"sort"

	"github.com/agentspine/spine/contract"
)

// Calibration sources.
const (
	SourceSOP        = "sop"        // a live C entry (QueryC)
	SourcePotentials = "potentials" // the pair's live M/K potentials (QueryMK)
)

// Pair is one tag pair calibration reads.
type Pair struct {
	Space  string `json:"space"`
	Entity string `json:"entity"`
}

// String is the pair as messages cite it: "tool:read_file × path:config/service.yaml".
func (p Pair) String() string { return p.Space + " × " + p.Entity }

// IntentPair is the pair of a task's intent: (intent:<slug>, env:local).
func IntentPair(intent string) Pair { return Pair{IntentSpace(intent), EntityLocal} }

// ToolPair is the pair of a tool as a whole, whatever it was pointed at:
// (tool:<name>, env:local), the tags of a Megram about a blocked tool.
func ToolPair(tool string) Pair { return Pair{ToolSpace(tool), EntityLocal} }

// TargetPair is the pair of a tool on one target: (tool:<name>, path:<target>), the tags
// GGS gives a blocked target.
func TargetPair(tool, target string) Pair { return Pair{ToolSpace(tool), PathEntity(target)} }

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
	// Attention and Decision are the pair's live potentials (for both sources), Action
	// the verdict they give.
	Attention float64 `json:"attention"`
	Decision  float64 `json:"decision"`
	Action    string  `json:"action"`
	Fared
}

// Fared is how a pair's M/K entries went: counted by the sign of σ·f (failed below 0,
// neutral at 0, worked above), and the states of the entries whose record was read
// (StatesOf of them), most frequent first.
type Fared struct {
	Failed   int          `json:"failed,omitempty"`
	Neutral  int          `json:"neutral,omitempty"`
	Worked   int          `json:"worked,omitempty"`
	States   []StateCount `json:"states,omitempty"`
	StatesOf int          `json:"states_of,omitempty"`
}

// StateCount is how many of a pair's entries were written in one state.
type StateCount struct {
	State string `json:"state"`
	N     int    `json:"n"`
}

// PairReading is everything calibration learns of one pair in one read.
type PairReading struct {
	Pair
	Potentials contract.Potentials  `json:"potentials"`
	SOPs       []contract.SOPRecord `json:"-"`
	Fared
}

// PairReader is a Reader that reads a pair's potentials, how its entries fared and its
// live C entries in one scan. The Service and its Reader are; any other Reader is read
// with QueryC and QueryMK, and its entries' fate is unknown.
type PairReader interface {
	Reader
	QueryPair(ctx context.Context, space, entity string) (PairReading, error)
}

// Calibration is what memory says about the pairs a plan can touch: the MUST NOT set
// (constraints and Avoid verdicts), the SHOULD PREFER set (best practices and Exploit
// verdicts) and the entries to treat with caution (Caution verdicts, C entries with
// σ = 0). An Ignore verdict adds nothing. Pairs are read in the order given, duplicates
// once; in each set a pair's potentials entry comes first, then its SOPs by ID.
type Calibration struct {
	Pairs        []PairReading      `json:"pairs"`
	MustNot      []CalibrationEntry `json:"must_not"`
	ShouldPrefer []CalibrationEntry `json:"should_prefer"`
	Caution      []CalibrationEntry `json:"caution"`
}

// Calibrate reads every pair (QueryC and QueryMK, or QueryPair when r has it) and sorts
// the answers into the three sets. It is the one calibration call: the caller names the
// pairs (IntentPair, ToolPair, TargetPair).
func Calibrate(ctx context.Context, r Reader, pairs []Pair) (Calibration, error) {
	cal := Calibration{Pairs: []PairReading{}, MustNot: []CalibrationEntry{}, ShouldPrefer: []CalibrationEntry{},
		Caution: []CalibrationEntry{}}
	seen := make(map[Pair]bool, len(pairs))
	for _, p := range pairs {
		if seen[p] {
			continue
		}
		seen[p] = true
		rd, err := readPair(ctx, r, p)
		if err != nil {
			return Calibration{}, err
		}
		cal.add(rd)
	}
	return cal, nil
}

func readPair(ctx context.Context, r Reader, p Pair) (PairReading, error) {
	if pr, ok := r.(PairReader); ok {
		return pr.QueryPair(ctx, p.Space, p.Entity)
	}
	sops, err := r.QueryC(ctx, p.Space, p.Entity)
	if err != nil {
		return PairReading{}, err
	}
	pot, err := r.QueryMK(ctx, p.Space, p.Entity)
	if err != nil {
		return PairReading{}, err
	}
	return PairReading{Pair: p, Potentials: pot, SOPs: sops}, nil
}

func (cal *Calibration) add(rd PairReading) {
	cal.Pairs = append(cal.Pairs, rd)
	pot := rd.Potentials
	verdict := CalibrationEntry{Source: SourcePotentials, Space: rd.Space, Entity: rd.Entity,
		Attention: pot.Attention, Decision: pot.Decision, Action: pot.Action, Fared: rd.Fared}
	switch pot.Action {
	case contract.ActionAvoid:
		cal.MustNot = append(cal.MustNot, verdict)
	case contract.ActionExploit:
		cal.ShouldPrefer = append(cal.ShouldPrefer, verdict)
	case contract.ActionCaution:
		cal.Caution = append(cal.Caution, verdict)
	}
	sops := append([]contract.SOPRecord(nil), rd.SOPs...)
	sort.Slice(sops, func(i, j int) bool { return sops[i].ID < sops[j].ID })
	for _, sop := range sops {
		e := CalibrationEntry{Source: SourceSOP, SOPID: sop.ID, Space: sop.Space, Entity: sop.Entity,
			Content: sop.Content, State: sop.State, Sigma: sop.Sigma,
			Attention: pot.Attention, Decision: pot.Decision, Action: pot.Action}
		switch {
		case sop.Sigma < 0:
			cal.MustNot = append(cal.MustNot, e)
		case sop.Sigma > 0:
			cal.ShouldPrefer = append(cal.ShouldPrefer, e)
		default:
			cal.Caution = append(cal.Caution, e)
		}
	}
}

// maxStateReads bounds the records QueryPair reads to name the states of a pair's
// entries: the index holds f, σ and k but not the state, and a plan's calibration must
// stay within milliseconds however long a pair's history is.
const maxStateReads = 8

// QueryPair reads one pair in one index scan: the M/K potentials, how its entries fared,
// and its live C entries (whose last_recalled_at it refreshes, as QueryC does). The
// states are read from at most maxStateReads records, the pair's first in ID order, and
// only when the verdict is not Ignore.
func (s *Service) QueryPair(ctx context.Context, space, entity string) (PairReading, error) {
	rd := PairReading{Pair: Pair{space, entity}}
	err := s.use(func() error {
		var ids []string
		v, err := s.viewPairWith(ctx, space, entity, func(e *indexEntry) {
			if !countsInPotentials(e.Level) {
				return
			}
			switch d := e.Sigma * e.F; {
			case d < 0:
				rd.Failed++
			case d > 0:
				rd.Worked++
			default:
				rd.Neutral++
			}
			if len(ids) < maxStateReads {
				ids = append(ids, e.id())
			}
		})
		if err != nil {
			return err
		}
		rd.Potentials = v.acc.potentials(s.actions)
		if rd.Potentials.Action != contract.ActionIgnore {
			if err := s.readStates(ids, &rd.Fared); err != nil {
				return err
			}
		}
		rd.SOPs = make([]contract.SOPRecord, 0, len(v.liveC))
		for _, id := range v.liveC {
			r, err := s.be.get(id)
			if errors.Is(err, ErrNotFound) {
				continue // forgotten since the scan
			}
			if err != nil {
				return err
			}
			rd.SOPs = append(rd.SOPs, sopOf(r))
		}
		ids = ids[:0]
		for _, sop := range rd.SOPs {
			ids = append(ids, sop.ID)
		}
		s.recallAll(ids, s.now())
		return nil
	})
	return rd, err
}

// readStates counts the states of the given records, most frequent first, then by name.
func (s *Service) readStates(ids []string, f *Fared) error {
	counts := map[string]int{}
	for _, id := range ids {
		r, err := s.be.get(id)
		if errors.Is(err, ErrNotFound) {
			continue // forgotten since the scan
		}
		if err != nil {
			return err
		}
		counts[r.State]++
		f.StatesOf++
	}
	for st, n := range counts {
		f.States = append(f.States, StateCount{State: st, N: n})
	}
	sort.Slice(f.States, func(i, j int) bool {
		if f.States[i].N != f.States[j].N {
			return f.States[i].N > f.States[j].N
		}
		return f.States[i].State < f.States[j].State
	})
	return nil
}

// QueryPair reads one pair for calibration; see Service.QueryPair.
func (r readOnly) QueryPair(ctx context.Context, space, entity string) (PairReading, error) {
	return r.s.QueryPair(ctx, space, entity)
}
