package secrets

import (
	"encoding/base64"
	"encoding/hex"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// covered lists the encodings of secret a scrubbed text must not contain: the forms New
// looks for, and the whole base64 of secret in both alphabets, padded and not.
func covered(secret string) []string {
	out := forms(secret)
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		out = append(out, enc.EncodeToString([]byte(secret)))
	}
	return out
}

// FuzzScrub embeds a secret, in one of the covered encodings, in text around it, and
// checks that none of the encodings is left. Secrets with square brackets are skipped:
// such a secret can be completed by the brackets of "[REDACTED]" itself.
func FuzzScrub(f *testing.F) {
	f.Add(key, "OPENAI_API_KEY=", "\nPATH=/bin", uint8(0))
	f.Add(key, "x", "", uint8(3))
	f.Add(pass, `{"pw":"`, `"}`, uint8(1))
	f.Add("correct horse battery staple", "pw ", "", uint8(5))
	f.Add("aaaaaaaaaaaaaaaaaaaaaaaa1", strings.Repeat("a", 40), "1", uint8(0))
	f.Add("0123456789abcdef", "hex ", "", uint8(2))
	f.Fuzz(func(t *testing.T, secret, before, after string, how uint8) {
		if len(secret) < MinLen || strings.ContainsAny(secret, "[]") || len(before)+len(after) > 1<<14 {
			return
		}
		var enc string
		switch how % 6 {
		case 0:
			enc = secret
		case 1:
			enc = jsonForms(secret)[int(how/6)%3]
		case 2:
			enc = hex.EncodeToString([]byte(secret))
		case 3: // base64 of a stream with the secret at some alignment
			enc = base64.StdEncoding.EncodeToString([]byte(before + secret + after))
		case 4:
			enc = url.QueryEscape(secret)
		case 5:
			enc = base64.RawURLEncoding.EncodeToString([]byte(secret))
		}
		s := New(secret)
		text := before + enc + after
		out := s.String(text)
		for _, c := range covered(secret) {
			if strings.Contains(out, c) {
				t.Fatalf("String(%q) = %q still holds %q", text, out, c)
			}
		}
		if s.Contains(out) {
			t.Fatalf("String(%q) = %q, which Contains still matches", text, out)
		}
		if utf8.ValidString(text) && utf8.ValidString(secret) && !utf8.ValidString(out) {
			t.Fatalf("String(%q) = %q is not valid UTF-8", text, out)
		}
		if again := New(secret).String(text); again != out {
			t.Fatalf("not deterministic: %q then %q", out, again)
		}
	})
}
