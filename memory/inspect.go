package memory

import (
	"context"
	"errors"

	"github.com/agentspine/spine/contract"
)

// Inspection and operator calls: used by the CLI and tests, not by the roles.

// Get returns a stored record with its current last_recalled_at.
func (s *Service) Get(ctx context.Context, id string) (Record, error) {
	if err := validID(id); err != nil {
		return Record{}, errorf("get: %v", err)
	}
	var r Record
	err := s.use(func() error {
		var err error
		r, err = s.be.get(id)
		return err
	})
	return r, err
}

// SupersededBy returns the ID of the record that supersedes r, or "" when r is live.
func (s *Service) SupersededBy(ctx context.Context, r Record) (string, error) {
	var by string
	err := s.use(func() error {
		return scanPair(s.be, r.Space, r.Entity, func(e indexEntry) error {
			if e.Supersedes == r.ID {
				by = e.id()
				return errStop
			}
			return ctx.Err()
		})
	})
	return by, err
}

// ListFilter narrows List. Space and Entity use the tag index (Entity needs Space),
// Level alone uses the level index, nothing at all walks the primary records.
type ListFilter struct {
	Space, Entity, Level string
}

// List calls fn for every record matching f, in key order of the index it reads.
func (s *Service) List(ctx context.Context, f ListFilter, fn func(Record) error) error {
	if f.Entity != "" && f.Space == "" {
		return errorf("list: an entity filter needs a space")
	}
	if f.Level != "" && !validLevel(f.Level) {
		return errorf("list: level %q, want one of M, K, C, T", f.Level)
	}
	return s.use(func() error {
		emit := func(id string) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := s.be.get(id)
			if errors.Is(err, ErrNotFound) {
				return nil // forgotten since the index was read
			}
			if err != nil {
				return err
			}
			return fn(r)
		}
		fromIdx := func(e indexEntry) error {
			if f.Level != "" && e.Level != f.Level {
				return nil
			}
			return emit(e.id())
		}
		switch {
		case f.Space != "" && f.Entity != "":
			return scanPair(s.be, f.Space, f.Entity, fromIdx)
		case f.Space != "":
			return scanSpace(s.be, f.Space, fromIdx)
		case f.Level != "":
			return s.be.scanLevel(f.Level, emit)
		default:
			return s.be.scanRecords(func(r Record) error {
				if err := ctx.Err(); err != nil {
					return err
				}
				return fn(r)
			})
		}
	})
}

// PairReport is everything the store holds about one tag pair, read without side effects.
type PairReport struct {
	Space      string               `json:"space"`
	Entity     string               `json:"entity"`
	Potentials contract.Potentials  `json:"potentials"`
	Counts     map[string]int       `json:"counts"` // entries per level, superseded included
	SOPs       []contract.SOPRecord `json:"sops"`   // live C entries
}

// Pair reports one tag pair; unlike QueryC it does not refresh recall times.
func (s *Service) Pair(ctx context.Context, space, entity string) (PairReport, error) {
	var rep PairReport
	err := s.use(func() error {
		v, err := s.viewPair(ctx, space, entity)
		if err != nil {
			return err
		}
		sops, err := s.peekC(ctx, space, entity)
		if err != nil {
			return err
		}
		rep = PairReport{Space: space, Entity: entity, Potentials: v.acc.potentials(s.actions), Counts: v.counts, SOPs: sops}
		return nil
	})
	return rep, err
}

// Verify checks the whole store: every value decodes and every record has exactly its
// index entries.
func (s *Service) Verify(ctx context.Context) (VerifyReport, error) {
	var rep VerifyReport
	err := s.use(func() error {
		var err error
		rep, err = s.be.verify()
		return err
	})
	return rep, err
}

// Compact asks the storage to reclaim the space of deleted records.
func (s *Service) Compact(ctx context.Context) error {
	return s.use(func() error { return s.be.compact() })
}
