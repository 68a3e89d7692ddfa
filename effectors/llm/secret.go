package llm

import (
	"fmt"
	"strings"
)

// redacted replaces a secret wherever it would otherwise be shown.
const redacted = "[REDACTED]"

// Secret holds an API key. Every way of printing or serialising it (fmt verbs, JSON,
// YAML) yields "[REDACTED]", or "" when it is empty so that "not set" stays visible.
// Reveal is the single way to read it.
type Secret string

// Reveal returns the key itself, for the one place that must send it.
func (s Secret) Reveal() string { return string(s) }

// String implements fmt.Stringer without revealing the key.
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return redacted
}

// GoString implements fmt.GoStringer for %#v.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// Format makes every fmt verb print the redacted form.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, s.GoString())
		return
	}
	fmt.Fprint(f, s.String())
}

// MarshalJSON implements json.Marshaler with the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return []byte(fmt.Sprintf("%q", s.String())), nil }

// MarshalYAML implements yaml.Marshaler with the redacted form.
func (s Secret) MarshalYAML() (any, error) { return s.String(), nil }

// Scrub removes the key from text that came from elsewhere (an error body, a URL).
func (s Secret) Scrub(text string) string {
	if s == "" {
		return text
	}
	return strings.ReplaceAll(text, string(s), redacted)
}
