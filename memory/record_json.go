package memory

import (
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/agentspine/spine/internal/jsonw"
)

// appendRecordJSON appends r as the same JSON bytes encoding/json produces for it
// (FuzzRecordJSONMatchesEncodingJSON holds it to that), without reflection: encoding is
// the largest CPU cost of a write. r must be valid (see Record.validate).
func appendRecordJSON(b []byte, r Record) []byte {
	b = appendMembers(b, `{"id":`, r.ID, `,"level":`, r.Level)
	b = append(b, `,"created_at":"`...)
	b = r.CreatedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","last_recalled_at":"`...)
	b = r.LastRecalledAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, '"')
	b = appendMembers(b, `,"space":`, r.Space, `,"entity":`, r.Entity, `,"content":`, r.Content, `,"state":`, r.State)
	for _, m := range [...]struct {
		key string
		v   float64
	}{{`,"f":`, r.F}, {`,"sigma":`, r.Sigma}, {`,"k":`, r.K}} {
		b = appendJSONFloat(append(b, m.key...), m.v)
	}
	for _, m := range [...][2]string{{`,"origin":`, r.Origin}, {`,"supersedes":`, r.Supersedes}} {
		if m[1] != "" { // omitempty
			b = appendMembers(b, m[0], m[1])
		}
	}
	return append(b, '}')
}

// appendMembers appends each key (the text before a member's value) and its string.
func appendMembers(b []byte, keyValues ...string) []byte {
	for i := 0; i+1 < len(keyValues); i += 2 {
		b = appendJSONString(append(b, keyValues[i]...), keyValues[i+1])
	}
	return b
}

// appendJSONFloat formats like encoding/json; r is valid, so f is finite.
func appendJSONFloat(b []byte, f float64) []byte {
	b, _ = jsonw.Float(b, f)
	return b
}

// appendJSONString quotes s like encoding/json with HTML escaping.
func appendJSONString(b []byte, s string) []byte { return jsonw.String(b, s, true) }

// decodeRecordFast reads a megram: value written in the exact form appendRecordJSON
// gives it: its keys in its order, no whitespace, strings without escapes and in valid
// UTF-8, numbers in JSON's grammar, nothing after the object. ok is false for anything
// else, which decodeRecord then reads with encoding/json; a value read here decodes there
// to the same Record (FuzzDecodeRecordFastMatchesEncodingJSON). One allocation backs
// every string of the record.
func decodeRecordFast(data []byte) (r Record, ok bool) {
	c := jsonCursor{s: string(data)}
	ok = c.lit(`{"id":`) && c.str(&r.ID) &&
		c.lit(`,"level":`) && c.str(&r.Level) &&
		c.lit(`,"created_at":`) && c.time(data, &r.CreatedAt) &&
		c.lit(`,"last_recalled_at":`) && c.time(data, &r.LastRecalledAt) &&
		c.lit(`,"space":`) && c.str(&r.Space) &&
		c.lit(`,"entity":`) && c.str(&r.Entity) &&
		c.lit(`,"content":`) && c.str(&r.Content) &&
		c.lit(`,"state":`) && c.str(&r.State) &&
		c.lit(`,"f":`) && c.number(&r.F) &&
		c.lit(`,"sigma":`) && c.number(&r.Sigma) &&
		c.lit(`,"k":`) && c.number(&r.K)
	if !ok {
		return Record{}, false
	}
	if c.lit(`,"origin":`) && !c.str(&r.Origin) {
		return Record{}, false
	}
	if c.lit(`,"supersedes":`) && !c.str(&r.Supersedes) {
		return Record{}, false
	}
	if !c.lit("}") || c.i != len(c.s) {
		return Record{}, false
	}
	return r, true
}

// jsonCursor reads the canonical record form; each method moves past what it read and
// reports false, moving nowhere, for anything else.
type jsonCursor struct {
	s string
	i int
}

func (c *jsonCursor) lit(l string) bool {
	if len(c.s)-c.i >= len(l) && c.s[c.i:c.i+len(l)] == l {
		c.i += len(l)
		return true
	}
	return false
}

// str reads a string whose JSON text is its value: no escape, no control character,
// valid UTF-8 (encoding/json would replace invalid bytes).
func (c *jsonCursor) str(dst *string) bool {
	if c.i >= len(c.s) || c.s[c.i] != '"' {
		return false
	}
	start, ascii := c.i+1, true
	for j := start; j < len(c.s); j++ {
		switch b := c.s[j]; {
		case b == '"':
			v := c.s[start:j]
			if !ascii && !utf8.ValidString(v) {
				return false
			}
			*dst, c.i = v, j+1
			return true
		case b == '\\' || b < 0x20:
			return false
		case b >= utf8.RuneSelf:
			ascii = false
		}
	}
	return false
}

// time reads a plain string as encoding/json reads a time.Time: its quoted text goes to
// Time.UnmarshalJSON. data holds the same bytes as c.s.
func (c *jsonCursor) time(data []byte, dst *time.Time) bool {
	start := c.i
	var v string
	if !c.str(&v) {
		return false
	}
	if err := dst.UnmarshalJSON(data[start:c.i]); err != nil {
		c.i = start
		return false
	}
	return true
}

// number reads a number in JSON's grammar and parses it as encoding/json does.
func (c *jsonCursor) number(dst *float64) bool {
	s, j := c.s, c.i
	digits := func() int {
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			n++
		}
		return n
	}
	if j < len(s) && s[j] == '-' {
		j++
	}
	switch {
	case j < len(s) && s[j] == '0':
		j++
	case j < len(s) && s[j] >= '1' && s[j] <= '9':
		digits()
	default:
		return false
	}
	if j < len(s) && s[j] == '.' {
		j++
		if digits() == 0 {
			return false
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if digits() == 0 {
			return false
		}
	}
	f, err := strconv.ParseFloat(s[c.i:j], 64)
	if err != nil {
		return false
	}
	*dst, c.i = f, j
	return true
}
