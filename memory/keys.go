package memory

// Key schema (LevelDB; the in-memory backend keeps the same order):
//
//	megram:<id>                   → the Record as JSON (primary record, written once)
//	idx:<space>:<entity>:<id>     → summary (covering inverted index, written once)
//	lvl:<level>:<id>              → ""      (level index)
//	recall:<id>                   → RFC 3339 time, UTC (last_recalled_at; the only key
//	                                          ever overwritten; C and T records only)
//
// <space> and <entity> are escaped: '%' becomes "%25" and ':' becomes "%3A", so the
// tags "tool:go" and "path:/a:b" give idx:tool%3Ago:path%3A/a%3Ab:<id>. Without it two
// different pairs could share a prefix ("a:b","c" and "a","b:c"), and a tag scan would
// not be a pure prefix scan. IDs never contain ':' (see validID).
//
// The idx value is not empty: it carries what the potentials need (level, f, σ, k, the
// decay reference time and the superseded ID) so that QueryMK and the Dreamer read one
// prefix range and decode no JSON. It is derived from the record and written with it in
// the same batch, so it never disagrees with it.
//
// Append-only: a record is never rewritten. A correction is a new record (a negative-σ
// Megram). Trust bankruptcy appends a K-level record whose Supersedes names the C
// record; it has the same tag pair, so every read of the pair sees both in one prefix
// scan and drops the superseded one. Physical forgetting deletes all keys of a record,
// and deleting a superseding record deletes the record it superseded with it (otherwise
// the stale C entry would come back).

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
)

const (
	prefixMegram = "megram:"
	prefixIdx    = "idx:"
	prefixLvl    = "lvl:"
	prefixRecall = "recall:"
)

var tagEscaper = strings.NewReplacer("%", "%25", ":", "%3A")

func escapeTag(s string) string {
	if !strings.ContainsAny(s, "%:") {
		return s
	}
	return tagEscaper.Replace(s)
}

// unescapeTag reverses escapeTag; anything else after a '%' is an error.
func unescapeTag(s string) (string, error) {
	if !strings.Contains(s, "%") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		switch {
		case strings.HasPrefix(s[i:], "%25"):
			b.WriteByte('%')
		case strings.HasPrefix(s[i:], "%3A"):
			b.WriteByte(':')
		default:
			return "", fmt.Errorf("bad escape at byte %d of %q, want %%25 or %%3A", i, s)
		}
		i += 2
	}
	return b.String(), nil
}

func megramKey(id string) []byte { return []byte(prefixMegram + id) }
func recallKey(id string) []byte { return []byte(prefixRecall + id) }
func levelPrefix(level string) string {
	return prefixLvl + level + ":"
}
func levelKey(level, id string) []byte { return []byte(levelPrefix(level) + id) }

// pairPrefix is the idx: prefix of every entry of one (space, entity) pair.
func pairPrefix(space, entity string) string {
	return prefixIdx + escapeTag(space) + ":" + escapeTag(entity) + ":"
}

// spacePrefix is the idx: prefix of every entry of one space.
func spacePrefix(space string) string { return prefixIdx + escapeTag(space) + ":" }

func idxKey(space, entity, id string) []byte { return []byte(pairPrefix(space, entity) + id) }

// parseIdxKey splits idx:<space>:<entity>:<id> and unescapes the tags.
// pairLen is the length of the pair prefix, for cheap grouping of consecutive keys.
func parseIdxKey(key string) (space, entity, id string, pairLen int, err error) {
	rest, ok := strings.CutPrefix(key, prefixIdx)
	if !ok {
		return "", "", "", 0, fmt.Errorf("index key %q does not start with %q", key, prefixIdx)
	}
	parts := strings.SplitN(rest, ":", 3)
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return "", "", "", 0, fmt.Errorf("index key %q, want idx:<space>:<entity>:<id>", key)
	}
	if space, err = unescapeTag(parts[0]); err != nil {
		return "", "", "", 0, fmt.Errorf("index key space: %w", err)
	}
	if entity, err = unescapeTag(parts[1]); err != nil {
		return "", "", "", 0, fmt.Errorf("index key entity: %w", err)
	}
	return space, entity, parts[2], len(key) - len(parts[2]), nil
}

// summary is the idx: value: what potentials and the Dreamer need from a record.
type summary struct {
	Level      string
	F, Sigma   float64
	K          float64
	Ref        time.Time // decay reference: last_recalled_at as written
	Supersedes string
}

func (s summary) equal(o summary) bool {
	return s.Level == o.Level && s.F == o.F && s.Sigma == o.Sigma && s.K == o.K &&
		s.Ref.Equal(o.Ref) && s.Supersedes == o.Supersedes
}

func summarise(r Record) summary {
	return summary{Level: r.Level, F: r.F, Sigma: r.Sigma, K: r.K, Ref: r.decayRef(), Supersedes: r.Supersedes}
}

// Summary layout, version 1, big-endian:
//
//	[0]      version = 1
//	[1]      level byte: 'M', 'K', 'C' or 'T'
//	[2:10]   f      float64 bits
//	[10:18]  sigma  float64 bits
//	[18:26]  k      float64 bits
//	[26:34]  decay reference, Unix nanoseconds
//	[34:]    superseded ID (empty for most records)
const (
	summaryVersion = 1
	summaryFixed   = 34
)

func encodeSummary(s summary) []byte {
	b := make([]byte, summaryFixed+len(s.Supersedes))
	b[0] = summaryVersion
	b[1] = s.Level[0]
	binary.BigEndian.PutUint64(b[2:], math.Float64bits(s.F))
	binary.BigEndian.PutUint64(b[10:], math.Float64bits(s.Sigma))
	binary.BigEndian.PutUint64(b[18:], math.Float64bits(s.K))
	binary.BigEndian.PutUint64(b[26:], uint64(s.Ref.UnixNano()))
	copy(b[summaryFixed:], s.Supersedes)
	return b
}

// decodeSummary parses an idx: value, refusing anything encodeSummary cannot produce.
func decodeSummary(b []byte) (summary, error) {
	if len(b) < summaryFixed {
		return summary{}, fmt.Errorf("index value is %d bytes, want at least %d", len(b), summaryFixed)
	}
	if b[0] != summaryVersion {
		return summary{}, fmt.Errorf("index value version %d, want %d", b[0], summaryVersion)
	}
	s := summary{
		Level: levelName(b[1]),
		F:     math.Float64frombits(binary.BigEndian.Uint64(b[2:])),
		Sigma: math.Float64frombits(binary.BigEndian.Uint64(b[10:])),
		K:     math.Float64frombits(binary.BigEndian.Uint64(b[18:])),
		Ref:   time.Unix(0, int64(binary.BigEndian.Uint64(b[26:]))).UTC(),
	}
	if s.Level == "" {
		return summary{}, fmt.Errorf("index value level %q, want one of M, K, C, T", b[1:2])
	}
	// Written as plain comparisons: this runs once per entry of every scan.
	if !(s.F >= 0 && s.F <= 1) {
		return summary{}, validNumber("index value f", s.F, 0, 1)
	}
	if !(s.Sigma >= -1 && s.Sigma <= 1) {
		return summary{}, validNumber("index value sigma", s.Sigma, -1, 1)
	}
	if !(s.K >= 0 && s.K <= 100) {
		return summary{}, validNumber("index value k", s.K, 0, 100)
	}
	if len(b) > summaryFixed {
		s.Supersedes = string(b[summaryFixed:])
		if err := validID(s.Supersedes); err != nil {
			return summary{}, fmt.Errorf("index value supersedes: %w", err)
		}
	}
	return s, nil
}

// levelName maps a level byte to its constant string, "" if it is none.
func levelName(c byte) string {
	switch c {
	case 'M':
		return contract.LevelM
	case 'K':
		return contract.LevelK
	case 'C':
		return contract.LevelC
	case 'T':
		return contract.LevelT
	}
	return ""
}

func encodeRecall(t time.Time) []byte { return []byte(t.UTC().Format(time.RFC3339Nano)) }

func decodeRecall(b []byte) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil {
		return time.Time{}, fmt.Errorf("recall value %q: want an RFC 3339 time: %w", b, err)
	}
	if err := validTime("recall value", t); err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}
