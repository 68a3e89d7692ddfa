package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Tag spaces of an intent. A terminal state's Megram is written under both: the seed's
// three-word tag groups every task that starts alike, the full tag only tasks with the
// same whole intent. Calibration reads the full tag first.
const (
	IntentSpacePrefix     = "intent:"
	IntentFullSpacePrefix = "intent.full:"
)

// IntentSlug derives the memory tag of a task's intent: its first three words, lowercased,
// joined by underscores, with everything but letters and digits dropped from each word.
// "Migrate the DB schema" → "migrate_the_db". An intent with no words gives "unknown".
func IntentSlug(intent string) string {
	var words []string
	for _, w := range strings.Fields(intent) {
		var b strings.Builder
		for _, r := range strings.ToLower(w) {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 && isLetterOrDigit(r) {
				b.WriteRune(r)
			}
		}
		if b.Len() > 0 {
			words = append(words, b.String())
		}
		if len(words) == 3 {
			break
		}
	}
	if len(words) == 0 {
		return "unknown"
	}
	return strings.Join(words, "_")
}

// MaxIntentFullSlug bounds IntentFullSlug in bytes.
const MaxIntentFullSlug = 64

// intentHashHex is how many hex digits of SHA-256 end a cut IntentFullSlug.
const intentHashHex = 8

// IntentFullSlug derives the precise memory tag of an intent: every word of it, lowercased,
// joined by underscores. A word is a run of letters, digits and combining marks; an
// apostrophe inside a word is dropped ("don't" → "dont") and any other punctuation or space
// separates words, so case, punctuation and spacing do not change the tag. Stop words are
// kept: dropping them needs a per-language list and would merge intents that differ only
// in them. A slug longer than MaxIntentFullSlug bytes is cut at a word boundary and ends
// in "-" and the first 8 hex digits of the SHA-256 of the whole slug ("-" never occurs in a
// word, so a cut slug cannot equal an uncut one). An intent with no words gives "unknown".
func IntentFullSlug(intent string) string {
	var words []string
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, b.String())
			b.Reset()
		}
	}
	for _, r := range strings.ToLower(intent) {
		switch {
		case isWordRune(r):
			b.WriteRune(r)
		case r == '\'' || r == '’':
		default:
			flush()
		}
	}
	flush()
	if len(words) == 0 {
		return "unknown"
	}
	slug := strings.Join(words, "_")
	if len(slug) <= MaxIntentFullSlug {
		return slug
	}
	sum := sha256.Sum256([]byte(slug))
	suffix := "-" + hex.EncodeToString(sum[:])[:intentHashHex]
	head := slug[:MaxIntentFullSlug-len(suffix)]
	// Cut at the last word boundary that keeps at least one word, else at a rune start.
	if slug[len(head)] == '_' {
		// head ends on a whole word already.
	} else if i := strings.LastIndexByte(head, '_'); i > 0 {
		head = head[:i]
	} else {
		for len(head) > 0 && !utf8.RuneStart(slug[len(head)]) {
			head = head[:len(head)-1]
		}
	}
	return head + suffix
}

// IntentSpace is the seed's tag space of an intent: "intent:" + IntentSlug.
func IntentSpace(intent string) string { return IntentSpacePrefix + IntentSlug(intent) }

// IntentFullSpace is the precise tag space of an intent: "intent.full:" + IntentFullSlug.
func IntentFullSpace(intent string) string { return IntentFullSpacePrefix + IntentFullSlug(intent) }
