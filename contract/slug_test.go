package contract

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestIntentSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Migrate the DB schema to v2", "migrate_the_db"},
		{"  DB   migration task!", "db_migration_task"},
		{"Résumé parsing", "résumé_parsing"},
		{"", "unknown"},
		{"!!! ???", "unknown"},
		{"fix: the build", "fix_the_build"},
	} {
		if got := IntentSlug(tc.in); got != tc.want {
			t.Errorf("IntentSlug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestIntentFullSlug(t *testing.T) {
	long := "Fix the failing tests in the parser package after the tokenizer rewrite broke string escapes"
	for _, tc := range []struct{ in, want string }{
		{"Fix the failing tests in the parser", "fix_the_failing_tests_in_the_parser"},
		{"fix the failing tests in the parser", "fix_the_failing_tests_in_the_parser"},
		{"FIX the failing tests, in the parser!", "fix_the_failing_tests_in_the_parser"},
		{"  fix\tthe failing-tests in: the  parser.", "fix_the_failing_tests_in_the_parser"},
		{"Don't touch config/service.yaml", "dont_touch_config_service_yaml"},
		{"Don’t touch config/service.yaml", "dont_touch_config_service_yaml"},
		{"Résumé parsing", "résumé_parsing"},
		{"Re\u0301sume\u0301 parsing", "re\u0301sume\u0301_parsing"},
		{"Fix the failing", "fix_the_failing"},
		{"", "unknown"},
		{"!!! ???", "unknown"},
		{long, "fix_the_failing_tests_in_the_parser_package_after_the-" + hashOf(t, long)},
		{strings.Repeat("a", 70), strings.Repeat("a", 55) + "-" + hashOf(t, strings.Repeat("a", 70))},
		{strings.Repeat("é", 40), strings.Repeat("é", 27) + "-" + hashOf(t, strings.Repeat("é", 40))},
	} {
		got := IntentFullSlug(tc.in)
		if got != tc.want {
			t.Errorf("IntentFullSlug(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if len(got) > MaxIntentFullSlug || !utf8.ValidString(got) {
			t.Errorf("IntentFullSlug(%q) = %q: %d bytes (max %d), valid UTF-8 %v", tc.in, got, len(got), MaxIntentFullSlug, utf8.ValidString(got))
		}
	}
}

// hashOf is the hash suffix of a cut slug, computed here from the slug the test expects
// the words to make: lowercased, joined by underscores.
func hashOf(t *testing.T, intent string) string {
	t.Helper()
	slug := strings.Join(strings.Fields(strings.ToLower(intent)), "_")
	return sha256Hex(slug)[:intentHashHex]
}

// Two intents that share their first three words share the seed's tag and nothing else.
func TestIntentSpacesOfAlikeIntents(t *testing.T) {
	a, b := "Fix the failing tests in the parser", "Fix the failing deploy of the web app"
	if IntentSpace(a) != IntentSpace(b) || IntentSpace(a) != "intent:fix_the_failing" {
		t.Errorf("seed tags %q, %q: want both intent:fix_the_failing", IntentSpace(a), IntentSpace(b))
	}
	if IntentFullSpace(a) == IntentFullSpace(b) {
		t.Errorf("full tags of %q and %q are both %q", a, b, IntentFullSpace(a))
	}
	if got := IntentFullSpace("Fix the failing"); got == IntentSpace("Fix the failing") {
		t.Errorf("a three-word intent's full tag %q equals its seed tag", got)
	}
	// Long intents that differ only after the cut still differ.
	x := strings.Repeat("word ", 20) + "alpha"
	y := strings.Repeat("word ", 20) + "beta"
	if IntentFullSlug(x) == IntentFullSlug(y) {
		t.Errorf("long intents differing at the end share %q", IntentFullSlug(x))
	}
}

func FuzzIntentFullSlug(f *testing.F) {
	for _, s := range []string{"", "Fix the failing tests", strings.Repeat("ab ", 40), "\xff\xfe", "é\u0301'’"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := IntentFullSlug(in)
		if got == "" || len(got) > MaxIntentFullSlug || !utf8.ValidString(got) {
			t.Fatalf("IntentFullSlug(%q) = %q", in, got)
		}
		if IntentFullSlug(strings.ToUpper(in)) != IntentFullSlug(strings.ToLower(in)) && utf8.ValidString(in) && !changesUnderCase(in) {
			t.Fatalf("IntentFullSlug depends on case for %q", in)
		}
		if again := IntentFullSlug(in + " !?"); again != got {
			t.Fatalf("trailing punctuation changed %q to %q", got, again)
		}
	})
}

// changesUnderCase reports runes whose upper and lower forms do not round-trip (ß, ǅ,
// Turkish dotless i…): case folding them legitimately changes the words.
func changesUnderCase(s string) bool {
	return strings.ToLower(strings.ToUpper(s)) != strings.ToLower(s)
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
