package trace

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestPaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.jsonl", "a.jsonl", "sub/c.jsonl", "notes.txt"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := WriteNewFile(p, []byte("{}\n")); err != nil {
			t.Fatal(err)
		}
	}
	one := filepath.Join(dir, "notes.txt")
	got, err := Paths([]string{one, dir})
	want := []string{one, filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "sub", "c.jsonl")}
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("Paths = %v, %v; want %v", got, err, want)
	}
	empty := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{{nil, "expected trace files"}, {[]string{empty}, "a directory with no .jsonl trace under it"}, {[]string{filepath.Join(dir, "absent")}, "no such file"}} {
		if _, err := Paths(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Paths(%v) = %v, want an error with %q", tc.args, err, tc.want)
		}
	}
	if err := WriteNewFile(one, []byte("x")); err == nil {
		t.Error("WriteNewFile overwrote a file")
	}
}
