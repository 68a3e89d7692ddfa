package memory

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/util"

	"github.com/agentspine/spine/internal/strictjson"
)

// ExportType is the "type" of every line Export writes.
const ExportType = "MemoryRecord"

// ExportedRecord is one line of an export: a stored record exactly as the store holds it
// (origin, supersedes and level included) and the recall time it has, if any. Restore
// writes it back to the same keys and values.
type ExportedRecord struct {
	Record Record
	// RecalledAt is the value of recall:<id>; zero when the record has none.
	RecalledAt time.Time
}

// rawStore is the byte-level access export, restore and the pre-import check need; both
// backends have it.
type rawStore interface {
	// rawRecord returns the megram: and recall: values of id; rec is nil when it is absent.
	rawRecord(id string) (rec, recall []byte, err error)
	// scanRaw yields every record's megram: and recall: values in ID order.
	scanRaw(fn func(id string, rec, recall []byte) error) error
	// readAll reads every key and value, so that a damaged table fails its checksum here.
	readAll() error
}

var (
	_ rawStore = (*levelBackend)(nil)
	_ rawStore = (*memBackend)(nil)
)

// Export writes every record as one JSON line in ID order and returns how many it wrote.
// A value that does not decode stops the export with an error naming its key: a restore
// must never be built from a store that is silently incomplete.
func (s *Service) Export(ctx context.Context, w io.Writer) (int, error) {
	n := 0
	err := s.use(func() error {
		raw, ok := s.be.(rawStore)
		if !ok {
			return errors.New("memory: this backend cannot export")
		}
		bw := bufio.NewWriter(w)
		line := make([]byte, 0, 512)
		err := raw.scanRaw(func(id string, rec, recall []byte) error {
			if err := ctx.Err(); err != nil {
				return err
			}
			r, err := decodeRecord(rec)
			if err != nil {
				return fmt.Errorf("megram:%s: %w", id, err)
			}
			if r.ID != id {
				return fmt.Errorf("megram:%s holds the record of %q", id, r.ID)
			}
			if recall != nil {
				if _, err := decodeRecall(recall); err != nil {
					return fmt.Errorf("recall:%s: %w", id, err)
				}
			}
			line = appendExportLine(line[:0], rec, recall)
			if _, err := bw.Write(line); err != nil {
				return err
			}
			n++
			return nil
		})
		if err != nil {
			return err
		}
		return bw.Flush()
	})
	return n, err
}

// appendExportLine renders {"type":"MemoryRecord","record":<megram: value>[,"recalled_at":"…"]}.
// The record is the stored JSON verbatim: compact, on one line.
func appendExportLine(b, rec, recall []byte) []byte {
	b = append(b, `{"type":"`+ExportType+`","record":`...)
	b = append(b, rec...)
	if recall != nil {
		b = append(b, `,"recalled_at":"`...)
		b = append(b, recall...)
		b = append(b, '"')
	}
	return append(b, '}', '\n')
}

// ParseExportLine reads one line written by Export. Unknown fields are refused, so that
// the output of `memory ls --json` (which adds live potentials) is not mistaken for it.
func ParseExportLine(line []byte) (ExportedRecord, error) {
	var env struct {
		Type       *string         `json:"type"`
		Record     json.RawMessage `json:"record"`
		RecalledAt *string         `json:"recalled_at"`
	}
	if err := strictjson.Decode(line, &env); errors.Is(err, strictjson.ErrTrailing) {
		return ExportedRecord{}, errors.New("exported record: trailing data after the JSON object")
	} else if err != nil {
		return ExportedRecord{}, fmt.Errorf("exported record: %v", err)
	}
	if env.Type == nil || *env.Type != ExportType {
		return ExportedRecord{}, fmt.Errorf("exported record: type must be %q", ExportType)
	}
	if env.Record == nil {
		return ExportedRecord{}, errors.New("exported record: no record")
	}
	r, err := decodeRecord(env.Record)
	if err != nil {
		return ExportedRecord{}, err
	}
	r.normalise()
	out := ExportedRecord{Record: r}
	if env.RecalledAt != nil {
		t, err := decodeRecall([]byte(*env.RecalledAt))
		if err != nil {
			return ExportedRecord{}, fmt.Errorf("exported record %s: %w", r.ID, err)
		}
		out.RecalledAt = t
	}
	return out, nil
}

func (l *levelBackend) rawRecord(id string) (rec, recall []byte, err error) {
	rec, err = l.db.Get(megramKey(id), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	recall, err = l.db.Get(recallKey(id), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return rec, nil, nil
	}
	return rec, recall, err
}

func (l *levelBackend) scanRaw(fn func(id string, rec, recall []byte) error) error {
	// One snapshot: records and recalls are read as of one instant.
	snap, err := l.db.GetSnapshot()
	if err != nil {
		return err
	}
	defer snap.Release()
	it := snap.NewIterator(util.BytesPrefix([]byte(prefixMegram)), nil)
	defer it.Release()
	for it.Next() {
		id := string(it.Key()[len(prefixMegram):])
		recall, err := snap.Get(recallKey(id), nil)
		if errors.Is(err, leveldb.ErrNotFound) {
			recall, err = nil, nil
		}
		if err != nil {
			return err
		}
		if err := fn(id, it.Value(), recall); err != nil {
			return err
		}
	}
	return it.Error()
}

func (l *levelBackend) readAll() error {
	it := l.db.NewIterator(nil, nil)
	defer it.Release()
	for it.Next() {
	}
	return it.Error()
}

func (m *memBackend) rawRecord(id string) (rec, recall []byte, err error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, nil, ErrClosed
	}
	r, ok := m.records[id]
	if !ok {
		return nil, nil, nil
	}
	if t, ok := m.recalls[id]; ok {
		recall = encodeRecall(t)
	}
	return encodeRecord(r), recall, nil
}

func (m *memBackend) scanRaw(fn func(id string, rec, recall []byte) error) error {
	ids, err := m.sortedIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		rec, recall, err := m.rawRecord(id)
		if err != nil {
			return err
		}
		if rec == nil {
			continue // deleted since the listing
		}
		if err := fn(id, rec, recall); err != nil {
			return err
		}
	}
	return nil
}

func (m *memBackend) readAll() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return ErrClosed
	}
	return nil
}
