package memory

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// memBackend keeps the same records and indexes as the LevelDB backend in maps, and
// scans them in the same key order. It holds no lock while a scan calls back, so a
// callback may use the store.
type memBackend struct {
	mu      sync.RWMutex
	closed  bool
	records map[string]Record
	recalls map[string]time.Time
	pairs   map[string]*memPair // by pairPrefix
	levels  map[string]map[string]struct{}
}

type memPair struct {
	space, entity string
	ids           map[string]summary
}

var _ backend = (*memBackend)(nil)

func newMemBackend() *memBackend {
	return &memBackend{
		records: map[string]Record{},
		recalls: map[string]time.Time{},
		pairs:   map[string]*memPair{},
		levels:  map[string]map[string]struct{}{},
	}
}

func (m *memBackend) apply(c *change) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	for _, r := range c.puts {
		// The twin refuses what a LevelDB read would refuse.
		if err := r.validate(); err != nil {
			return fmt.Errorf("megram %s: %w", r.ID, err)
		}
	}
	for _, r := range c.puts {
		m.records[r.ID] = r
		p := pairPrefix(r.Space, r.Entity)
		mp := m.pairs[p]
		if mp == nil {
			mp = &memPair{space: r.Space, entity: r.Entity, ids: map[string]summary{}}
			m.pairs[p] = mp
		}
		mp.ids[r.ID] = summarise(r)
		lv := m.levels[r.Level]
		if lv == nil {
			lv = map[string]struct{}{}
			m.levels[r.Level] = lv
		}
		lv[r.ID] = struct{}{}
	}
	for _, rc := range c.recalls {
		m.recalls[rc.ID] = rc.At.UTC()
	}
	for _, d := range c.deletes {
		delete(m.records, d.ID)
		if !countsInPotentials(d.Level) {
			delete(m.recalls, d.ID)
		}
		p := pairPrefix(d.Space, d.Entity)
		if mp := m.pairs[p]; mp != nil {
			delete(mp.ids, d.ID)
			if len(mp.ids) == 0 {
				delete(m.pairs, p)
			}
		}
		if lv := m.levels[d.Level]; lv != nil {
			delete(lv, d.ID)
		}
	}
	return nil
}

func (m *memBackend) has(id string) (bool, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return false, ErrClosed
	}
	_, ok := m.records[id]
	return ok, nil
}

func (m *memBackend) get(id string) (Record, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Record{}, ErrClosed
	}
	r, ok := m.records[id]
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if t, ok := m.recalls[id]; ok && t.After(r.LastRecalledAt) {
		r.LastRecalledAt = t
	}
	return r, nil
}

// idxSnapshot is the idx: entries of a scan as of one moment: each pair's tags once,
// then its entries in ID order.
type idxSnapshot struct {
	pairs   []snapPair
	entries []snapEntry
}

type snapPair struct {
	space, entity string
	end           int // the pair's entries end at entries[end]
}

type snapEntry struct {
	id string
	s  summary
}

func (m *memBackend) getStored(id []byte) (Record, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return Record{}, ErrClosed
	}
	r, ok := m.records[string(id)]
	if !ok {
		return Record{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return r, nil
}

// snapshotIdx copies the idx: entries whose pair prefix starts with prefix, in key order,
// into slices sized before they are filled: a whole-store scan copies each entry once.
func (m *memBackend) snapshotIdx(prefix string) (idxSnapshot, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return idxSnapshot{}, ErrClosed
	}
	var keys []string
	if _, ok := m.pairs[prefix]; ok {
		keys = []string{prefix} // a whole pair: no need to look at the others
	} else {
		for p := range m.pairs {
			if strings.HasPrefix(p, prefix) {
				keys = append(keys, p)
			}
		}
		sort.Strings(keys)
	}
	n := 0
	for _, p := range keys {
		n += len(m.pairs[p].ids)
	}
	snap := idxSnapshot{pairs: make([]snapPair, 0, len(keys)), entries: make([]snapEntry, 0, n)}
	for _, p := range keys {
		mp := m.pairs[p]
		start := len(snap.entries)
		for id, s := range mp.ids {
			snap.entries = append(snap.entries, snapEntry{id, s})
		}
		pe := snap.entries[start:]
		slices.SortFunc(pe, func(a, b snapEntry) int { return strings.Compare(a.id, b.id) })
		snap.pairs = append(snap.pairs, snapPair{mp.space, mp.entity, len(snap.entries)})
	}
	return snap, nil
}

func (m *memBackend) scanIdx(prefix string, fn func(indexEntry) error) error {
	snap, err := m.snapshotIdx(prefix)
	if err != nil {
		return err
	}
	start := 0
	for _, p := range snap.pairs {
		for _, se := range snap.entries[start:p.end] {
			if err := fn(indexEntry{Space: p.space, Entity: p.entity, idStr: se.id, summary: se.s}); err != nil {
				return scanEnd(err)
			}
		}
		start = p.end
	}
	return nil
}

func (m *memBackend) scanLevel(level string, fn func(string) error) error {
	m.mu.RLock()
	if m.closed {
		m.mu.RUnlock()
		return ErrClosed
	}
	ids := make([]string, 0, len(m.levels[level]))
	for id := range m.levels[level] {
		ids = append(ids, id)
	}
	m.mu.RUnlock()
	sort.Strings(ids)
	for _, id := range ids {
		if err := fn(id); err != nil {
			return scanEnd(err)
		}
	}
	return nil
}

func (m *memBackend) scanRecords(fn func(Record) error) error {
	ids, err := m.sortedIDs()
	if err != nil {
		return err
	}
	for _, id := range ids {
		r, err := m.get(id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the snapshot
		}
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return scanEnd(err)
		}
	}
	return nil
}

// dump renders the store as the key/value pairs LevelDB would hold, in key order.
func (m *memBackend) dump() ([][2][]byte, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	var kvs [][2][]byte
	for id, r := range m.records {
		kvs = append(kvs,
			[2][]byte{megramKey(id), encodeRecord(r)},
			[2][]byte{levelKey(r.Level, id), nil})
	}
	for _, mp := range m.pairs {
		for id, s := range mp.ids {
			kvs = append(kvs, [2][]byte{idxKey(mp.space, mp.entity, id), encodeSummary(s)})
		}
	}
	for id, t := range m.recalls {
		kvs = append(kvs, [2][]byte{recallKey(id), encodeRecall(t)})
	}
	sort.Slice(kvs, func(i, j int) bool { return string(kvs[i][0]) < string(kvs[j][0]) })
	return kvs, nil
}

func (m *memBackend) verify() (VerifyReport, error) {
	kvs, err := m.dump()
	if err != nil {
		return VerifyReport{}, err
	}
	return verifyKeys(func(fn func(k, v []byte) error) error {
		for _, kv := range kvs {
			if err := fn(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
}

func (m *memBackend) compact() error { return nil }

func (m *memBackend) close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}

// sortedIDs lists the stored record ids in order, taken under the lock so that a scan
// sees one moment of the store.
func (m *memBackend) sortedIDs() ([]string, error) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.closed {
		return nil, ErrClosed
	}
	ids := make([]string, 0, len(m.records))
	for id := range m.records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}
