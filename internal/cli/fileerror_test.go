package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"testing"
)

// TestFileError: a system call's error is said "PATH: reason", wrapped or not, and still
// is the error it was; other errors pass as they are; Named heads an error by its file once.
func TestFileError(t *testing.T) {
	dir := t.TempDir()
	_, missing := os.Open(dir + "/missing.yaml")
	_, isDir := os.ReadFile(dir)
	other := errors.New("rules.yaml:3:1: unknown field")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{missing, dir + "/missing.yaml: no such file or directory"},
		{fmt.Errorf("--verify-key: %w", missing), "--verify-key: " + dir + "/missing.yaml: no such file or directory"},
		{isDir, dir + ": a directory, not a regular file"},
		{other, other.Error()},
	} {
		got := FileError(tc.err)
		if got.Error() != tc.want || !errors.Is(got, tc.err) {
			t.Errorf("FileError(%v) = %q, want %q wrapping it", tc.err, got, tc.want)
		}
	}
	if !errors.Is(FileError(missing), fs.ErrNotExist) {
		t.Error("FileError hides ErrNotExist")
	}
	for _, tc := range []struct{ path, want string }{{"a.jsonl", "a.jsonl: rules.yaml:3:1: unknown field"}, {"rules.yaml", other.Error()}} {
		if got := Named(tc.path, other); got != tc.want {
			t.Errorf("Named(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
