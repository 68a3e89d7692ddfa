package contract

import "strings"

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
