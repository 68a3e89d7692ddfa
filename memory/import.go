package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentspine/spine/contract"
)

// ImportError names the entry of an Import or Restore that was refused.
type ImportError struct {
	Index int // position in the slice given to Import or Restore
	Err   error
}

func (e *ImportError) Error() string { return e.Err.Error() }
func (e *ImportError) Unwrap() error { return e.Err }

// ImportOptions say how an import treats records that are already stored.
type ImportOptions struct {
	// SkipExisting skips a record stored with identical values and refuses one stored
	// with different values, so that an import that was interrupted can be run again to
	// completion. Megrams must then carry their id and created_at: a minted id or a
	// created_at of "now" would make a second run append the same Megram again.
	SkipExisting bool
}

// ImportReport is what an import did.
type ImportReport struct {
	Imported []string // IDs written, in input order
	Skipped  int      // identical records already stored (SkipExisting)
}

// Import appends Megrams synchronously with origin operator:import, for an operator
// restoring a journal of GGS writes. The rules of Write apply (M or K only, no ID twice);
// the first refused Megram stops the import before anything is written.
func (s *Service) Import(ctx context.Context, ms []contract.Megram) ([]string, error) {
	rep, err := s.ImportWith(ctx, ms, ImportOptions{})
	return rep.Imported, err
}

// ImportWith is Import with options.
func (s *Service) ImportWith(ctx context.Context, ms []contract.Megram, o ImportOptions) (ImportReport, error) {
	items := make([]importItem, len(ms))
	for i, m := range ms {
		if o.SkipExisting && (m.ID == "" || m.CreatedAt.IsZero()) {
			return ImportReport{}, &ImportError{Index: i, Err: errorf("megram (%s, %s) has no id or no created_at; skipping existing records needs both, or a second run would append it again", m.Space, m.Entity)}
		}
		r, err := s.prepare(m, OriginImport)
		if err != nil {
			return ImportReport{}, &ImportError{Index: i, Err: err}
		}
		items[i] = importItem{rec: r}
	}
	return s.importItems(ctx, items, o)
}

// Restore writes records read back from an Export under their own IDs, levels, origins
// and recall times, so that the store holds the same keys and values as the exported
// one. Nothing is written when any record is refused.
func (s *Service) Restore(ctx context.Context, recs []ExportedRecord, o ImportOptions) (ImportReport, error) {
	items := make([]importItem, len(recs))
	for i, e := range recs {
		r := e.Record
		r.normalise()
		if err := r.validate(); err != nil {
			return ImportReport{}, &ImportError{Index: i, Err: errorf("megram %q: %v", r.ID, err)}
		}
		items[i] = importItem{rec: r}
		if !e.RecalledAt.IsZero() {
			if err := validTime("recalled_at", e.RecalledAt); err != nil {
				return ImportReport{}, &ImportError{Index: i, Err: errorf("megram %s: %v", r.ID, err)}
			}
			items[i].recall = encodeRecall(e.RecalledAt)
		}
	}
	return s.importItems(ctx, items, o)
}

// importItem is one record to write, with its recall: value or nil.
type importItem struct {
	rec    Record
	recall []byte
}

// importItems checks every item against the store, then writes the new ones in batches
// of MaxBatch records. A process killed between batches leaves whole batches behind;
// SkipExisting lets the same import finish the job.
func (s *Service) importItems(ctx context.Context, items []importItem, o ImportOptions) (ImportReport, error) {
	seen := make(map[string]int, len(items))
	for i, it := range items {
		if j, dup := seen[it.rec.ID]; dup {
			return ImportReport{}, &ImportError{Index: i, Err: errorf("megram %s: same ID as entry %d", it.rec.ID, j)}
		}
		seen[it.rec.ID] = i
	}
	var rep ImportReport
	err := s.use(func() error {
		raw, ok := s.be.(rawStore)
		if !ok {
			return errors.New("memory: this backend cannot import")
		}
		// A store that fails its checksums gets nothing added to it: the operator must
		// see the damage, not a success on top of it.
		if err := raw.readAll(); err != nil {
			return errorf("import: the store fails its checks, nothing was imported: %v", err)
		}
		s.applyMu.Lock()
		defer s.applyMu.Unlock()
		todo := make([]importItem, 0, len(items))
		for i, it := range items {
			if err := ctx.Err(); err != nil {
				return err
			}
			rec, recall, err := raw.rawRecord(it.rec.ID)
			if err != nil {
				return err
			}
			if rec == nil {
				todo = append(todo, it)
				continue
			}
			if !o.SkipExisting {
				return &ImportError{Index: i, Err: errorf("megram %s: ID already stored; the store never overwrites", it.rec.ID)}
			}
			if d := difference(rec, recall, it); d != "" {
				return &ImportError{Index: i, Err: errorf("megram %s is already stored with different values: %s; only identical records are skipped", it.rec.ID, d)}
			}
			rep.Skipped++
		}
		for start := 0; start < len(todo); start += s.maxBatch {
			batch := todo[start:min(start+s.maxBatch, len(todo))]
			var c change
			for _, it := range batch {
				c.puts = append(c.puts, it.rec)
				if it.recall != nil {
					at, err := decodeRecall(it.recall)
					if err != nil {
						return err
					}
					c.recalls = append(c.recalls, recallSet{ID: it.rec.ID, At: at})
				}
			}
			if err := s.be.apply(&c); err != nil {
				return errorf("import: %v (%d of %d new records were written; the same import with skipping of existing records finishes it)", err, start, len(todo))
			}
			for _, it := range batch {
				rep.Imported = append(rep.Imported, it.rec.ID)
			}
			s.written.Add(int64(len(batch)))
		}
		return nil
	})
	if err != nil {
		return ImportReport{Skipped: rep.Skipped, Imported: rep.Imported}, err
	}
	if rep.Imported == nil {
		rep.Imported = []string{}
	}
	return rep, nil
}

// recordFields is the order of a record's JSON fields, for naming the first difference.
var recordFields = []string{"id", "level", "created_at", "last_recalled_at", "space", "entity",
	"content", "state", "f", "sigma", "k", "origin", "supersedes"}

// difference names the first field in which a stored record (and recall value) differs
// from the one to import, or returns "" when they are the same bytes.
func difference(rec, recall []byte, it importItem) string {
	want := encodeRecord(it.rec)
	if bytes.Equal(rec, want) && bytes.Equal(recall, it.recall) {
		return ""
	}
	var have, wantF map[string]json.RawMessage
	_ = json.Unmarshal(rec, &have) // a stored value that does not decode differs in every field
	_ = json.Unmarshal(want, &wantF)
	show := func(v json.RawMessage, ok bool) string {
		if !ok {
			return "absent"
		}
		if len(v) > 60 {
			return string(v[:57]) + "…"
		}
		return string(v)
	}
	for _, f := range recordFields {
		h, hok := have[f]
		w, wok := wantF[f]
		if hok != wok || !bytes.Equal(h, w) {
			return fmt.Sprintf("%s is %s in the store, %s in the file", f, show(h, hok), show(w, wok))
		}
	}
	if !bytes.Equal(recall, it.recall) {
		return fmt.Sprintf("recalled_at is %s in the store, %s in the file", show(quote(recall), recall != nil), show(quote(it.recall), it.recall != nil))
	}
	return "the stored value is not canonical JSON"
}

func quote(b []byte) json.RawMessage {
	if b == nil {
		return nil
	}
	return json.RawMessage(`"` + string(b) + `"`)
}
