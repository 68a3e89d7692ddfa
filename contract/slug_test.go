package contract

import "testing"

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
