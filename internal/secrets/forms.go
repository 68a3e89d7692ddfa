package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"unicode/utf8"
)

// encodings are the base64 alphabets a value is looked for in.
var encodings = []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding}

// forms returns the texts that stand for v: v itself, then its JSON, URL, hex and base64
// forms, without duplicates. The base64 forms are the parts of an encoding that depend on
// v's bytes alone, for each of the three alignments v can have in a longer stream, so
// they are found whatever precedes v and with or without padding.
func forms(v string) []string {
	out := []string{v}
	add := func(f string) {
		for _, o := range out {
			if o == f {
				return
			}
		}
		if f != "" {
			out = append(out, f)
		}
	}
	for _, f := range jsonForms(v) {
		add(f)
	}
	add(url.QueryEscape(v))
	add(url.PathEscape(v))
	add(lowerPercent(url.QueryEscape(v)))
	add(lowerPercent(url.PathEscape(v)))
	add(hex.EncodeToString([]byte(v)))
	add(strings.ToUpper(hex.EncodeToString([]byte(v))))
	for _, enc := range encodings {
		for k := range 3 {
			add(base64Inner(enc, v, k))
		}
	}
	return out
}

// hexAndBase64 are the forms of v that are worth matching in part: long runs of them
// only come from v.
func hexAndBase64(v string) []string {
	out := []string{hex.EncodeToString([]byte(v)), strings.ToUpper(hex.EncodeToString([]byte(v)))}
	for _, enc := range encodings {
		for k := range 3 {
			out = append(out, base64Inner(enc, v, k))
		}
	}
	return out
}

// base64Inner is the part of the base64 of k filler bytes followed by v that depends on
// v only: the characters whose six bits all come from v's bytes.
func base64Inner(enc *base64.Encoding, v string, k int) string {
	src := make([]byte, k+len(v))
	copy(src[k:], v)
	e := enc.EncodeToString(src)
	start, end := (8*k+5)/6, 8*(k+len(v))/6
	if start >= end {
		return ""
	}
	return e[start:end]
}

// jsonForms are v's contents as a JSON string: as Go writes it (with and without HTML
// escaping), with every non-ASCII character as \u escapes (Python's default), and with
// "/" escaped as "\/" (PHP's).
func jsonForms(v string) []string {
	html, _ := json.Marshal(v)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	p := strings.TrimSuffix(plain.String(), "\n")
	out := []string{unquote(string(html)), unquote(p), unquote(asciiJSON(p))}
	if strings.Contains(v, "/") {
		out = append(out, strings.ReplaceAll(unquote(p), "/", `\/`))
	}
	return out
}

func unquote(s string) string { return strings.TrimSuffix(strings.TrimPrefix(s, `"`), `"`) }

// asciiJSON writes every non-ASCII character of a JSON text as \u escapes.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// lowerPercent writes the hex digits of percent escapes in lower case, as some encoders do.
func lowerPercent(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
			i += 2
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// keyLike tells whether v looks like a token (an API key, an access key, a JWT) rather
// than a path, an address or a sentence, so that parts of it are worth hiding too: long,
// one word of the characters tokens are made of, with letters and digits.
func keyLike(v string) bool {
	if len(v) < 16 || strings.HasPrefix(v, "/") || strings.HasPrefix(v, ".") || strings.HasPrefix(v, "~") {
		return false
	}
	letter, digit := false, false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9':
			digit = true
		case c == '-', c == '_', c == '.', c == '+', c == '/', c == '=', c == '~':
		default:
			return false
		}
	}
	return letter && digit
}
