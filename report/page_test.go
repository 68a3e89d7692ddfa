package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestPageFile: the page goes beside its trace by default, where -o says otherwise, and
// never over the trace itself.
func TestPageFile(t *testing.T) {
	for _, tc := range []struct{ path, out, want, err string }{
		{"runs/a.jsonl", "", "runs/a.html", ""},
		{"runs/a.trace", "", "runs/a.trace.html", ""},
		{"a.jsonl", "-", "-", ""},
		{"a.jsonl", "b.html", "b.html", ""},
		{"runs/a.jsonl", "runs/./a.jsonl", "", "runs/a.jsonl: the page would overwrite the trace; name another file with -o"},
	} {
		got, err := PageFile(tc.path, tc.out)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && err.Error() != tc.err {
			t.Errorf("PageFile(%q, %q) = %q, %v; want %q, %q", tc.path, tc.out, got, err, tc.want, tc.err)
		}
	}
}

// TestWriteTracePage: the page written to a file and to stdout is the page Write renders.
func TestWriteTracePage(t *testing.T) {
	const name = "testdata/failed_model.trace.jsonl"
	tf := readFixture(t, name)
	want := render(t, name, tf)
	var stdout bytes.Buffer
	if r, err := WriteTracePage(name, tf, "-", &stdout); err != nil || r == nil || !bytes.Equal(stdout.Bytes(), want) {
		t.Fatalf("to stdout: %v, %d bytes, want %d", err, stdout.Len(), len(want))
	}
	out := filepath.Join(t.TempDir(), "page.html")
	if _, err := WriteTracePage(name, tf, out, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(out); err != nil || !bytes.Equal(got, want) {
		t.Errorf("to %s: %v, %d bytes, want %d", out, err, len(got), len(want))
	}
}
