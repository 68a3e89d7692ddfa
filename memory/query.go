package memory

import (
	"context"
	"errors"

	"github.com/agentspine/spine/contract"
)

// pairView is one prefix scan of a tag pair: the M/K potentials and the live C entries.
type pairView struct {
	acc    accumulator
	counts map[string]int // entries per level, superseded ones included
	liveC  []string       // IDs of C entries not superseded, in ID order
}

func checkTags(space, entity string) error {
	if err := validText("space", space, maxTagLen, true); err != nil {
		return errorf("%v", err)
	}
	if err := validText("entity", entity, maxTagLen, true); err != nil {
		return errorf("%v", err)
	}
	return nil
}

// viewPair reads one pair with a single prefix scan of its idx: range.
func (s *Service) viewPair(ctx context.Context, space, entity string) (pairView, error) {
	return s.viewPairWith(ctx, space, entity, nil)
}

// viewPairWith is viewPair that also hands each entry to each (when not nil), so a caller
// can tally more in the same scan.
func (s *Service) viewPairWith(ctx context.Context, space, entity string, each func(*indexEntry)) (pairView, error) {
	if err := checkTags(space, entity); err != nil {
		return pairView{}, err
	}
	now := s.now()
	v := pairView{counts: map[string]int{}}
	var cs []string
	superseded := map[string]bool{}
	n := 0
	err := scanPair(s.be, space, entity, func(e indexEntry) error {
		if n++; n%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		v.counts[e.Level]++
		if each != nil {
			each(&e)
		}
		if e.Supersedes != "" {
			superseded[e.Supersedes] = true
		}
		switch {
		case countsInPotentials(e.Level):
			v.acc.add(e.summary, now)
		case e.Level == contract.LevelC:
			cs = append(cs, e.id())
		}
		return nil
	})
	if err != nil {
		return pairView{}, err
	}
	for _, id := range cs {
		if !superseded[id] {
			v.liveC = append(v.liveC, id)
		}
	}
	return v, nil
}

// QueryMK returns M_attention = Σ|f|·e^(−kΔt) and M_decision = Σσ·f·e^(−kΔt) over the
// pair's M and K entries at the Clock's now, with the derived action. It reads one
// prefix range of the index and changes nothing.
func (s *Service) QueryMK(ctx context.Context, space, entity string) (contract.Potentials, error) {
	var p contract.Potentials
	err := s.use(func() error {
		v, err := s.viewPair(ctx, space, entity)
		if err != nil {
			return err
		}
		p = v.acc.potentials(s.actions)
		return nil
	})
	return p, err
}

// QueryC returns the pair's live C-level entries (superseded ones excluded) in ID order,
// and queues a refresh of their last_recalled_at to the Clock's now.
func (s *Service) QueryC(ctx context.Context, space, entity string) ([]contract.SOPRecord, error) {
	var out []contract.SOPRecord
	err := s.use(func() error {
		sops, err := s.peekC(ctx, space, entity)
		if err != nil {
			return err
		}
		ids := make([]string, len(sops))
		for i, r := range sops {
			ids[i] = r.ID
		}
		s.recallAll(ids, s.now())
		out = sops
		return nil
	})
	return out, err
}

// peekC lists the live C entries of a pair without touching their recall time.
func (s *Service) peekC(ctx context.Context, space, entity string) ([]contract.SOPRecord, error) {
	v, err := s.viewPair(ctx, space, entity)
	if err != nil {
		return nil, err
	}
	out := make([]contract.SOPRecord, 0, len(v.liveC))
	for _, id := range v.liveC {
		r, err := s.be.get(id)
		if errors.Is(err, ErrNotFound) {
			continue // forgotten since the scan
		}
		if err != nil {
			return nil, err
		}
		out = append(out, sopOf(r))
	}
	return out, nil
}

func sopOf(r Record) contract.SOPRecord {
	return contract.SOPRecord{
		ID: r.ID, Space: r.Space, Entity: r.Entity, Content: r.Content, State: r.State, Sigma: r.Sigma,
	}
}
