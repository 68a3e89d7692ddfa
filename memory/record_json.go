package memory

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// appendRecordJSON appends r as the same JSON bytes encoding/json produces for it
// (FuzzRecordJSONMatchesEncodingJSON holds it to that), without reflection: encoding is
// the largest CPU cost of a write. r must be valid (see Record.validate).
func appendRecordJSON(b []byte, r Record) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, r.ID)
	b = append(b, `,"level":`...)
	b = appendJSONString(b, r.Level)
	b = append(b, `,"created_at":"`...)
	b = r.CreatedAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","last_recalled_at":"`...)
	b = r.LastRecalledAt.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","space":`...)
	b = appendJSONString(b, r.Space)
	b = append(b, `,"entity":`...)
	b = appendJSONString(b, r.Entity)
	b = append(b, `,"content":`...)
	b = appendJSONString(b, r.Content)
	b = append(b, `,"state":`...)
	b = appendJSONString(b, r.State)
	b = append(b, `,"f":`...)
	b = appendJSONFloat(b, r.F)
	b = append(b, `,"sigma":`...)
	b = appendJSONFloat(b, r.Sigma)
	b = append(b, `,"k":`...)
	b = appendJSONFloat(b, r.K)
	if r.Origin != "" {
		b = append(b, `,"origin":`...)
		b = appendJSONString(b, r.Origin)
	}
	if r.Supersedes != "" {
		b = append(b, `,"supersedes":`...)
		b = appendJSONString(b, r.Supersedes)
	}
	return append(b, '}')
}

// appendJSONFloat formats like encoding/json: shortest 'f' form, 'e' form outside
// [1e-6, 1e21) with a one-digit negative exponent unpadded.
func appendJSONFloat(b []byte, f float64) []byte {
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s like encoding/json with HTML escaping: control characters,
// '"', '\\', '<', '>', '&', U+2028 and U+2029 are escaped; s is valid UTF-8.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
