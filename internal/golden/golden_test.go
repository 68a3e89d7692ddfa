package golden

import (
	"os"
	"path/filepath"
	"testing"
)

// recorder captures failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Fatalf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestCheck(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "out.golden")
	Check(t, path, []byte("one\n"), true)
	if b, err := os.ReadFile(path); err != nil || string(b) != "one\n" {
		t.Fatalf("rewrite wrote %q, %v", b, err)
	}
	same := &recorder{TB: t}
	Check(same, path, []byte("one\n"), false)
	if same.failed {
		t.Error("equal output failed")
	}
	differs := &recorder{TB: t}
	Check(differs, path, []byte("two\n"), false)
	if !differs.failed {
		t.Error("different output passed")
	}
	missing := &recorder{TB: t}
	Check(missing, filepath.Join(t.TempDir(), "none"), []byte("x"), false)
	if !missing.failed {
		t.Error("a missing file passed")
	}
}
