package memory

import (
	"fmt"
	"sort"
	"strings"
)

// maxProblems caps a VerifyReport; a badly broken store would otherwise print forever.
const maxProblems = 1000

// verifyKeys checks a whole key space given in key order: every value decodes, every
// record has exactly its idx: and lvl: entries, and no index or recall entry points at a
// missing record.
func verifyKeys(each func(fn func(k, v []byte) error) error) (VerifyReport, error) {
	var rep VerifyReport
	problem := func(format string, a ...any) {
		if len(rep.Problems) < maxProblems {
			rep.Problems = append(rep.Problems, fmt.Sprintf(format, a...))
		}
	}
	type idxSeen struct {
		space, entity string
		s             summary
	}
	records := map[string]Record{}
	idx := map[string]idxSeen{}
	lvl := map[string]string{}
	recalls := map[string]bool{}

	err := each(func(k, v []byte) error {
		key := string(k)
		switch {
		case strings.HasPrefix(key, prefixMegram):
			rep.Records++
			id := key[len(prefixMegram):]
			r, err := decodeRecord(v)
			if err != nil {
				problem("%s: %v", key, err)
				return nil
			}
			if r.ID != id {
				problem("%s: holds the record of %q", key, r.ID)
				return nil
			}
			records[id] = r
		case strings.HasPrefix(key, prefixIdx):
			rep.Index++
			space, entity, id, _, err := parseIdxKey(key)
			if err != nil {
				problem("%v", err)
				return nil
			}
			s, err := decodeSummary(v)
			if err != nil {
				problem("%s: %v", key, err)
				return nil
			}
			if _, dup := idx[id]; dup {
				problem("%s: second index entry for %s", key, id)
			}
			idx[id] = idxSeen{space, entity, s}
		case strings.HasPrefix(key, prefixLvl):
			rep.Levels++
			level, id, ok := strings.Cut(key[len(prefixLvl):], ":")
			if !ok || !validLevel(level) || validID(id) != nil {
				problem("%s: want lvl:<level>:<id>", key)
				return nil
			}
			if len(v) != 0 {
				problem("%s: value is %d bytes, want empty", key, len(v))
			}
			if prev, dup := lvl[id]; dup {
				problem("%s: %s is also under level %s", key, id, prev)
			}
			lvl[id] = level
		case strings.HasPrefix(key, prefixRecall):
			rep.Recalls++
			id := key[len(prefixRecall):]
			if _, err := decodeRecall(v); err != nil {
				problem("%s: %v", key, err)
			}
			recalls[id] = true
		default:
			problem("key %q is outside the schema", key)
		}
		return nil
	})
	if err != nil {
		return rep, err
	}

	ids := make([]string, 0, len(records))
	for id := range records {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r := records[id]
		e, ok := idx[id]
		switch {
		case !ok:
			problem("megram:%s has no idx: entry", id)
		case e.space != r.Space || e.entity != r.Entity:
			problem("megram:%s is tagged (%s, %s) but indexed under (%s, %s)", id, r.Space, r.Entity, e.space, e.entity)
		case !e.s.equal(summarise(r)):
			problem("megram:%s: idx: summary %+v disagrees with the record", id, e.s)
		}
		if l, ok := lvl[id]; !ok {
			problem("megram:%s has no lvl: entry", id)
		} else if l != r.Level {
			problem("megram:%s is level %s but listed under lvl:%s:", id, r.Level, l)
		}
	}
	for _, orphans := range []struct {
		prefix string
		ids    []string
	}{
		{prefixIdx, missing(idx, records)},
		{prefixLvl, missing(lvl, records)},
		{prefixRecall, missing(recalls, records)},
	} {
		for _, id := range orphans.ids {
			problem("%s entry for %s has no megram: record", orphans.prefix, id)
		}
	}
	return rep, nil
}

// missing lists, sorted, the keys of m that have no record.
func missing[V any](m map[string]V, records map[string]Record) []string {
	var out []string
	for id := range m {
		if _, ok := records[id]; !ok {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}
