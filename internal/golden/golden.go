// Package golden compares test output with the expected output kept in testdata files,
// and rewrites those files when a package's tests run with -rewrite. It owns the
// comparison and the rewriting, not the files' formats or the flag: each package keeps
// its own -rewrite flag and passes its value in. It is for tests only and must not be
// imported by production code.
package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// Check fails t unless the file at path holds exactly got. With rewrite it writes got to
// path instead (creating its directory), to be reviewed in the diff.
func Check(t testing.TB, path string, got []byte, rewrite bool) {
	t.Helper()
	if rewrite {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -rewrite to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs (run with -rewrite after checking the change):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
