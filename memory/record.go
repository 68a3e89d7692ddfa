package memory

import (
	"errors"
	"fmt"
	"math"
	"time"
	"unicode/utf8"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/strictjson"
)

// Origins of stored records: who appended them.
const (
	OriginGGS     = RoleGGS           // written through the GGS writer
	OriginDreamer = "R5:dreamer"      // consolidation and trust bankruptcy
	OriginImport  = "operator:import" // loaded by an operator from a Megram journal
)

// Record is a stored Megram plus two facts about its provenance. On disk it is the
// Megram's JSON object with two extra fields, so any reader of the Megram contract can
// decode it.
type Record struct {
	contract.Megram
	// Origin says who appended the record (OriginGGS, OriginDreamer, OriginImport).
	Origin string `json:"origin,omitempty"`
	// Supersedes names the C-level record this one replaces after a trust bankruptcy.
	// Reads treat a superseded record as absent (see keys.go).
	Supersedes string `json:"supersedes,omitempty"`
}

// Limits on stored values; they keep keys and records a sane size.
const (
	maxIDLen      = 64
	maxTagLen     = 1024
	maxStateLen   = 64
	maxContentLen = 64 << 10
)

// Timestamps must lie in the range where UnixNano is exact (the index stores it).
var (
	minTime = time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)
)

func validLevel(l string) bool {
	switch l {
	case contract.LevelM, contract.LevelK, contract.LevelC, contract.LevelT:
		return true
	}
	return false
}

// validID accepts [A-Za-z0-9._-]{1,64}: safe inside a key and in a file name.
func validID(id string) error { return checkID(id) }

// validIDBytes is validID for a key suffix, without converting it.
func validIDBytes(id []byte) error { return checkID(id) }

func checkID[T string | []byte](id T) error {
	if len(id) == 0 {
		return fmt.Errorf("id is empty")
	}
	if len(id) > maxIDLen {
		return fmt.Errorf("id %.20q… is %d bytes, want at most %d", id, len(id), maxIDLen)
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return fmt.Errorf("id %q has byte %q at %d, want only letters, digits, '.', '_' and '-'", id, c, i)
		}
	}
	return nil
}

func validText(field, v string, max int, required bool) error {
	if required && v == "" {
		return fmt.Errorf("%s is empty", field)
	}
	if len(v) > max {
		return fmt.Errorf("%s is %d bytes, want at most %d", field, len(v), max)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%s is not valid UTF-8", field)
	}
	return nil
}

func validTime(field string, t time.Time) error {
	if t.Before(minTime) || !t.Before(maxTime) {
		return fmt.Errorf("%s %s is outside [1970, 2200)", field, t.Format(time.RFC3339Nano))
	}
	return nil
}

func validNumber(field string, v, lo, hi float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) || v < lo || v > hi {
		return fmt.Errorf("%s = %v, want a number in [%g, %g]", field, v, lo, hi)
	}
	return nil
}

// Validate checks a Megram as it would be stored: every field present and in range.
func Validate(m contract.Megram) error {
	if err := validID(m.ID); err != nil {
		return err
	}
	if !validLevel(m.Level) {
		return fmt.Errorf("level %q, want one of M, K, C, T", m.Level)
	}
	for _, c := range []struct {
		field, v string
		max      int
		required bool
	}{
		{"space", m.Space, maxTagLen, true},
		{"entity", m.Entity, maxTagLen, true},
		{"state", m.State, maxStateLen, false},
		{"content", m.Content, maxContentLen, false},
	} {
		if err := validText(c.field, c.v, c.max, c.required); err != nil {
			return err
		}
	}
	if err := validTime("created_at", m.CreatedAt); err != nil {
		return err
	}
	if err := validTime("last_recalled_at", m.LastRecalledAt); err != nil {
		return err
	}
	if err := validNumber("f", m.F, 0, 1); err != nil {
		return err
	}
	if err := validNumber("sigma", m.Sigma, -1, 1); err != nil {
		return err
	}
	return validNumber("k", m.K, 0, 100)
}

func (r Record) validate() error {
	if err := Validate(r.Megram); err != nil {
		return err
	}
	if err := validText("origin", r.Origin, maxStateLen, false); err != nil {
		return err
	}
	if r.Supersedes != "" {
		if err := validID(r.Supersedes); err != nil {
			return fmt.Errorf("supersedes: %w", err)
		}
	}
	return nil
}

// normalise puts times in UTC so that equal records encode to equal bytes.
func (r *Record) normalise() {
	r.CreatedAt = r.CreatedAt.UTC()
	r.LastRecalledAt = r.LastRecalledAt.UTC()
}

// decayRef is when the entry's decay clock started: its last recall, which a new
// record sets to its creation time.
func (r Record) decayRef() time.Time { return r.LastRecalledAt }

// encodeRecord renders the megram: value; r must be valid.
func encodeRecord(r Record) []byte { return appendRecordJSON(nil, r) }

// decodeRecordJSON reads a megram: value with encoding/json, for any form of the object.
func decodeRecordJSON(data []byte) (Record, error) {
	var r Record
	if err := strictjson.Decode(data, &r); errors.Is(err, strictjson.ErrTrailing) {
		return Record{}, errors.New("megram record: trailing data after the JSON object")
	} else if err != nil {
		return Record{}, fmt.Errorf("megram record: %w", err)
	}
	return r, nil
}

// decodeRecord parses a megram: value. Unknown fields are refused so that a value
// written by something else is reported rather than half-read.
func decodeRecord(data []byte) (Record, error) {
	r, ok := decodeRecordFast(data)
	if !ok {
		var err error
		if r, err = decodeRecordJSON(data); err != nil {
			return Record{}, err
		}
	}
	if err := r.validate(); err != nil {
		return Record{}, fmt.Errorf("megram record: %w", err)
	}
	return r, nil
}
