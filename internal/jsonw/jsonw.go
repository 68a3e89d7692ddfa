// Package jsonw is the project's one hand-written JSON writer of strings and numbers:
// what encoding/json writes for a string or a float64, byte for byte, appended to a
// buffer without reflection. The hot writers (spine ggs's decisions, memory's records)
// build their objects from it.
//
// It owns the text of one value and nothing else: no objects, no reflection, no
// decoding. It must not import any other package of the project.
package jsonw

import (
	"math"
	"strconv"
	"unicode/utf8"
)

const hexDigits = "0123456789abcdef"

// plain[html][c] says whether the ASCII byte c is written as itself: not a control
// character, quote or backslash, nor with html one of <, > and &.
var plain = func() (t [2][utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[0][c] = c != '"' && c != '\\'
		t[1][c] = t[0][c] && c != '<' && c != '>' && c != '&'
	}
	return t
}()

// String appends s quoted as encoding/json writes it: control characters, quote and
// backslash escaped, invalid UTF-8 as \ufffd, U+2028 and U+2029 escaped, and with
// escapeHTML (encoding/json's default) <, > and & as \u003c, \u003e, \u0026.
func String[T ~string | ~[]byte](b []byte, s T, escapeHTML bool) []byte {
	safe := &plain[0]
	if escapeHTML {
		safe = &plain[1]
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
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
		r, size := decodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

func decodeRune[T ~string | ~[]byte](s T) (rune, int) {
	switch v := any(s).(type) {
	case string:
		return utf8.DecodeRuneInString(v)
	case []byte:
		return utf8.DecodeRune(v)
	}
	return utf8.DecodeRuneInString(string(s))
}

// Float appends f as encoding/json writes a float64: the shortest text that reads back
// as f, in exponent form below 1e-6 and from 1e21 on, with a two-digit exponent
// shortened (e-09 → e-9). ok is false, and nothing appended, for NaN and the infinities,
// which JSON cannot hold.
func Float(b []byte, f float64) (out []byte, ok bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}
