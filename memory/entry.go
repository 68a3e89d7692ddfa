package memory

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Entry is a record as an inspector shows it: its stored fields, its own live
// potentials at a time, and the record that supersedes it.
type Entry struct {
	Record
	Attention    float64 `json:"attention"` // own live |f|·e^(−kΔt)
	Decision     float64 `json:"decision"`  // own live σ·f·e^(−kΔt)
	SupersededBy string  `json:"superseded_by,omitempty"`
}

func entryOf(r Record, now time.Time) Entry {
	att, dec := Contribution(r.F, r.Sigma, r.K, r.LastRecalledAt, now)
	return Entry{Record: r, Attention: att, Decision: dec}
}

// Entries lists the records f selects as entries at now; an entry's SupersededBy names
// the listed record that supersedes it.
func (s *Service) Entries(ctx context.Context, f ListFilter, now time.Time) ([]Entry, error) {
	var entries []Entry
	by := map[string]string{}
	err := s.List(ctx, f, func(r Record) error {
		entries = append(entries, entryOf(r, now))
		if r.Supersedes != "" {
			by[r.Supersedes] = r.ID
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := range entries {
		entries[i].SupersededBy = by[entries[i].ID]
	}
	return entries, nil
}

// Entry reads the record id as an entry at now, with the record that supersedes it.
func (s *Service) Entry(ctx context.Context, id string, now time.Time) (Entry, error) {
	r, err := s.Get(ctx, id)
	if err != nil {
		return Entry{}, err
	}
	e := entryOf(r, now)
	e.SupersededBy, err = s.SupersededBy(ctx, r)
	return e, err
}

// Line says what the event decided in one line: kind (space, entity) [id] [→ new id]
// [(not applied | error)]: rule.
func (ev DreamEvent) Line() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s (%s, %s)", ev.Kind, ev.Space, ev.Entity)
	if ev.ID != "" {
		b.WriteString(" " + ev.ID)
	}
	if ev.NewID != "" {
		b.WriteString(" → " + ev.NewID)
	}
	switch {
	case ev.Error != "":
		b.WriteString(" (" + ev.Error + ")")
	case !ev.Applied:
		b.WriteString(" (not applied)")
	}
	return b.String() + ": " + ev.Rule
}
