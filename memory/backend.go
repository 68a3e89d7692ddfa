package memory

import (
	"errors"
	"time"
)

// ErrNotFound is returned for an ID with no stored record.
var ErrNotFound = errors.New("memory: no such megram")

// ErrClosed is returned by every operation after Close.
var ErrClosed = errors.New("memory store is closed")

// recordRef names every key of one record, enough to delete it without reading it.
type recordRef struct {
	ID, Space, Entity, Level string
}

type recallSet struct {
	ID string
	At time.Time
}

// change is one atomic batch: every put, recall update and delete lands together or not
// at all.
type change struct {
	puts    []Record
	encoded [][]byte // optional megram: values of puts, encoded ahead by the writer
	// noSync commits without waiting for fsync, for batches that can be derived again.
	noSync  bool
	recalls []recallSet
	deletes []recordRef
}

func (c *change) empty() bool { return len(c.puts) == 0 && len(c.recalls) == 0 && len(c.deletes) == 0 }

// indexEntry is one idx: entry as a scan yields it.
type indexEntry struct {
	Space, Entity string
	// The entry's ID is idStr, or for LevelDB rawID, which is valid only during the scan
	// callback: converting it costs an allocation that most scans never need. Use id().
	idStr string
	rawID []byte
	summary
}

// appendID appends the entry's ID to b, without making it a string.
func (e *indexEntry) appendID(b []byte) []byte {
	if e.rawID != nil {
		return append(b, e.rawID...)
	}
	return append(b, e.idStr...)
}

// id returns the entry's ID as a string the caller may keep.
func (e *indexEntry) id() string {
	if e.rawID != nil {
		return string(e.rawID)
	}
	return e.idStr
}

// backend is the storage under a Service. Scans yield in key order, so both
// implementations list the same things in the same order.
type backend interface {
	// apply commits c atomically; for LevelDB with fsync unless the store or c is NoSync.
	// Deleting a record deletes its recall: key only when its level is C or T, the only
	// levels that have one.
	apply(c *change) error
	has(id string) (bool, error)
	// get returns the record with last_recalled_at taken from recall:<id> when later.
	get(id string) (Record, error)
	// getStored returns the megram: record as written, without the recall: time: for
	// readers of M and K entries (which have no recall: key) that hold the ID as bytes.
	getStored(id []byte) (Record, error)
	// scanIdx yields the idx: entries whose key starts with prefix, in key order: all
	// entries of a pair are adjacent. scanPair, scanSpace and scanIndex name its prefixes.
	scanIdx(prefix string, fn func(indexEntry) error) error
	// scanLevel yields the IDs under lvl:<level>: in ID order.
	scanLevel(level string, fn func(id string) error) error
	// scanRecords yields every megram: record in ID order.
	scanRecords(fn func(Record) error) error
	// verify checks that indexes and records agree and every value decodes.
	verify() (VerifyReport, error)
	// compact reclaims space after deletions (a no-op in memory).
	compact() error
	close() error
}

// scanPair yields the idx: entries of one tag pair in ID order.
func scanPair(b backend, space, entity string, fn func(indexEntry) error) error {
	return b.scanIdx(pairPrefix(space, entity), fn)
}

// scanSpace yields the idx: entries of one space in (entity, ID) key order.
func scanSpace(b backend, space string, fn func(indexEntry) error) error {
	return b.scanIdx(spacePrefix(space), fn)
}

// scanIndex yields every idx: entry in key order.
func scanIndex(b backend, fn func(indexEntry) error) error {
	return b.scanIdx(prefixIdx, fn)
}

// errStop ends a scan early without error.
var errStop = errors.New("stop scan")

// scanEnd is what a scan returns when its callback returned err: nothing for errStop,
// else err.
func scanEnd(err error) error {
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}

// VerifyReport is the result of a consistency check of the whole store.
type VerifyReport struct {
	Records  int      `json:"records"`
	Index    int      `json:"index_entries"`
	Levels   int      `json:"level_entries"`
	Recalls  int      `json:"recall_entries"`
	Problems []string `json:"problems"`
	// Damage is what VerifyLevelDB found corrupt in the store's files; the counts above
	// are then of what is still readable.
	Damage []Damage `json:"damage,omitempty"`
}
