package memory

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/syndtr/goleveldb/leveldb"
	"github.com/syndtr/goleveldb/leveldb/filter"
	"github.com/syndtr/goleveldb/leveldb/opt"
	"github.com/syndtr/goleveldb/leveldb/storage"
	"github.com/syndtr/goleveldb/leveldb/util"
)

// StorageOptions tune the LevelDB backend.
type StorageOptions struct {
	// MustExist refuses to create a new store (for inspection commands).
	MustExist bool
	// NoSync skips the fsync after each committed batch. Acknowledged writes then survive
	// the death of the process but not of the host. Off by default.
	NoSync bool
	// WriteBufferBytes is LevelDB's memtable size; 0 means 8 MiB.
	WriteBufferBytes int
	// CheckTables reads the whole store once at open, so that a table that fails its
	// checksums refuses the open (a *CorruptError) instead of failing a later read.
	CheckTables bool
}

// levelBackend stores records in a goleveldb database.
type levelBackend struct {
	db   *leveldb.DB
	stor storage.Storage
	dir  string // "" when no holder file was written
	sync bool
}

var _ backend = (*levelBackend)(nil)

// strictness is how every store is read: journal and table checksums are checked, and a
// table that fails them stops a read or a compaction instead of being skipped. Journal
// damage is found by checkFiles before LevelDB reads a journal (LevelDB would drop the
// damaged block and then delete the journal); a journal's torn tail, a write a killed
// process never finished, is LevelDB's to drop, as it was never acknowledged.
const strictness = opt.StrictJournalChecksum | opt.StrictBlockChecksum | opt.StrictCompaction | opt.StrictReader

// levelOptions are the goleveldb options of a store.
func levelOptions(o StorageOptions, readOnly bool) *opt.Options {
	wb := o.WriteBufferBytes
	if wb <= 0 {
		wb = 8 << 20
	}
	return &opt.Options{
		ErrorIfMissing: o.MustExist || readOnly,
		ReadOnly:       readOnly,
		Strict:         strictness,
		WriteBuffer:    wb,
		// Bloom filters make the duplicate-ID check of supplied IDs cheap.
		Filter: filter.NewBloomFilter(10),
		// A burst of writes must not stall on level-0 compaction: slow down and pause
		// later than the defaults (8 and 12 tables), and let level 1 grow to 40 MiB.
		WriteL0SlowdownTrigger: 16,
		WriteL0PauseTrigger:    32,
		CompactionTotalSize:    40 << 20,
	}
}

// lockFiles opens the files in dir under the store's lock (shared when readOnly). When
// mustExist, a store is there only with its CURRENT file: without it, the damage of the
// files that are there is returned (no storage, no error), or, when there are none, an
// error saying there is no store.
func lockFiles(dir string, mustExist, readOnly bool) (storage.Storage, []Damage, error) {
	if mustExist {
		// LevelDB would create the directory before noticing the store is missing.
		if _, err := os.Stat(filepath.Join(dir, "CURRENT")); err != nil {
			if d, derr := checkFiles(dir); derr == nil && len(d) > 0 {
				return nil, d, nil
			}
			return nil, nil, fmt.Errorf("memory: no store in %s: %w", dir, err)
		}
	}
	stor, err := storage.OpenFile(dir, readOnly)
	if err != nil {
		if lockBusy(err) {
			return nil, nil, lockedError(dir, err)
		}
		return nil, nil, fmt.Errorf("memory: open %s: %w", dir, err)
	}
	return stor, nil, nil
}

// openStorage takes the store's lock (shared when readOnly) and checks its files; a
// damaged store is refused with a *CorruptError and left as it was.
func openStorage(dir string, o StorageOptions, readOnly bool) (storage.Storage, error) {
	stor, damage, err := lockFiles(dir, o.MustExist || readOnly, readOnly)
	if err != nil {
		return nil, err
	}
	if damage != nil {
		return nil, &CorruptError{Dir: dir, Damage: damage} // files without CURRENT
	}
	damage, err = checkFiles(dir)
	if err == nil && len(damage) > 0 {
		err = &CorruptError{Dir: dir, Damage: damage}
	}
	if err != nil {
		stor.Close()
		return nil, err
	}
	return stor, nil
}

func openLevelBackend(dir string, o StorageOptions) (*levelBackend, error) {
	stor, err := openStorage(dir, o, false)
	if err != nil {
		return nil, err
	}
	if o.CheckTables {
		// Read-only first: a writable open replays the journal into a table and removes
		// it, which a store refused for damage must not have had done to it.
		if err := checkTables(stor, o); err != nil {
			stor.Close()
			return nil, openError(dir, err)
		}
	}
	db, err := leveldb.Open(stor, levelOptions(o, false))
	if err != nil {
		stor.Close()
		return nil, openError(dir, err)
	}
	writeHolder(dir)
	return &levelBackend{db: db, stor: stor, dir: dir, sync: !o.NoSync}, nil
}

// checkTables reads every key and value of the store read-only, which checks the
// checksum of every table block.
func checkTables(stor storage.Storage, o StorageOptions) error {
	db, err := leveldb.Open(stor, levelOptions(o, true))
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new store: nothing to read
	}
	if err != nil {
		return err
	}
	defer db.Close()
	return (&levelBackend{db: db}).readAll()
}

// openError names the damage of a store LevelDB refused as corrupt.
func openError(dir string, err error) error {
	if d, ok := damageOf(err); ok {
		return &CorruptError{Dir: dir, Damage: []Damage{d}}
	}
	return fmt.Errorf("memory: open %s: %w", dir, err)
}

func (l *levelBackend) apply(c *change) error {
	type kv struct {
		key, value []byte
		del        bool
	}
	ops := make([]kv, 0, 3*len(c.puts)+len(c.recalls)+4*len(c.deletes))
	for i, r := range c.puts {
		var v []byte
		if i < len(c.encoded) && c.encoded[i] != nil {
			v = c.encoded[i]
		} else {
			v = encodeRecord(r)
		}
		ops = append(ops,
			kv{key: megramKey(r.ID), value: v},
			kv{key: levelKey(r.Level, r.ID)},
			kv{key: idxKey(r.Space, r.Entity, r.ID), value: encodeSummary(summarise(r))})
	}
	for _, rc := range c.recalls {
		ops = append(ops, kv{key: recallKey(rc.ID), value: encodeRecall(rc.At)})
	}
	for _, d := range c.deletes {
		ops = append(ops,
			kv{key: megramKey(d.ID), del: true},
			kv{key: idxKey(d.Space, d.Entity, d.ID), del: true},
			kv{key: levelKey(d.Level, d.ID), del: true})
		if !countsInPotentials(d.Level) { // only C and T entries are ever recalled
			ops = append(ops, kv{key: recallKey(d.ID), del: true})
		}
	}
	if len(ops) == 0 {
		return nil
	}
	// Inserted in key order, consecutive keys walk neighbouring memtable nodes, which
	// are in cache: for a batch spread over many tag pairs this halves the insert cost.
	// The keys of one batch are distinct, so the order changes nothing else.
	slices.SortStableFunc(ops, func(a, b kv) int { return bytes.Compare(a.key, b.key) })
	var b leveldb.Batch
	for _, o := range ops {
		if o.del {
			b.Delete(o.key)
		} else {
			b.Put(o.key, o.value)
		}
	}
	return l.db.Write(&b, &opt.WriteOptions{Sync: l.sync && !c.noSync})
}

func (l *levelBackend) has(id string) (bool, error) {
	return l.db.Has(megramKey(id), nil)
}

func (l *levelBackend) get(id string) (Record, error) {
	v, err := l.db.Get(megramKey(id), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Record{}, err
	}
	r, err := decodeStored(id, v)
	if err != nil {
		return Record{}, err
	}
	rv, err := l.db.Get(recallKey(id), nil)
	switch {
	case errors.Is(err, leveldb.ErrNotFound):
	case err != nil:
		return Record{}, err
	default:
		t, err := decodeRecall(rv)
		if err != nil {
			return Record{}, fmt.Errorf("recall:%s: %w", id, err)
		}
		if t.After(r.LastRecalledAt) {
			r.LastRecalledAt = t
		}
	}
	return r, nil
}

func (l *levelBackend) getStored(id []byte) (Record, error) {
	key := make([]byte, 0, len(prefixMegram)+len(id))
	v, err := l.db.Get(append(append(key, prefixMegram...), id...), nil)
	if errors.Is(err, leveldb.ErrNotFound) {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Record{}, err
	}
	return decodeStored(id, v)
}

// decodeStored decodes the megram: value v of id.
func decodeStored[T string | []byte](id T, v []byte) (Record, error) {
	r, err := decodeRecord(v)
	if err != nil {
		return Record{}, fmt.Errorf("megram:%s: %w", id, err)
	}
	if r.ID != string(id) {
		return Record{}, fmt.Errorf("megram:%s holds the record of %q", id, r.ID)
	}
	return r, nil
}

// scanIdx iterates one idx: range, decoding each pair prefix once per group.
func (l *levelBackend) scanIdx(prefix string, fn func(indexEntry) error) error {
	it := l.db.NewIterator(util.BytesPrefix([]byte(prefix)), nil)
	defer it.Release()
	var lastPair []byte
	var e indexEntry
	for it.Next() {
		k := it.Key()
		if lastPair == nil || !bytes.HasPrefix(k, lastPair) || bytes.IndexByte(k[len(lastPair):], ':') >= 0 {
			space, entity, _, n, err := parseIdxKey(string(k))
			if err != nil {
				return err
			}
			lastPair = append(lastPair[:0], k[:n]...)
			e.Space, e.Entity = space, entity
		}
		e.rawID = k[len(lastPair):]
		if err := validIDBytes(e.rawID); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		s, err := decodeSummary(it.Value())
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		e.summary = s
		if err := fn(e); err != nil {
			return scanEnd(err)
		}
	}
	return it.Error()
}

func (l *levelBackend) scanLevel(level string, fn func(string) error) error {
	p := levelPrefix(level)
	it := l.db.NewIterator(util.BytesPrefix([]byte(p)), nil)
	defer it.Release()
	for it.Next() {
		if err := fn(string(it.Key()[len(p):])); err != nil {
			return scanEnd(err)
		}
	}
	return it.Error()
}

func (l *levelBackend) scanRecords(fn func(Record) error) error {
	it := l.db.NewIterator(util.BytesPrefix([]byte(prefixMegram)), nil)
	defer it.Release()
	for it.Next() {
		id := string(it.Key()[len(prefixMegram):])
		// get merges the recall: time; records are few enough per listing that the
		// extra lookup is cheaper than a second merged iterator.
		r, err := l.get(id)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return scanEnd(err)
		}
	}
	return it.Error()
}

func (l *levelBackend) verify() (VerifyReport, error) {
	return verifyKeys(func(fn func(k, v []byte) error) error {
		it := l.db.NewIterator(nil, nil)
		defer it.Release()
		for it.Next() {
			if err := fn(it.Key(), it.Value()); err != nil {
				return err
			}
		}
		return it.Error()
	})
}

func (l *levelBackend) compact() error { return l.db.CompactRange(util.Range{}) }

func (l *levelBackend) close() error {
	err := l.db.Close()
	if l.dir != "" {
		removeHolder(l.dir) // while the lock is still held: no holder's file is removed
	}
	if cerr := l.stor.Close(); err == nil {
		err = cerr
	}
	return err
}
