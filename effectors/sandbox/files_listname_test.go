package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A listing is one entry a line, whatever the names hold: a name with a newline cannot
// add an entry, and one with an escape sequence reaches no terminal raw.
func TestListFilesEscapesNames(t *testing.T) {
	f := newFixture(t, Options{})
	dir := filepath.Join(f.root, "names")
	for _, name := range []string{"notes.txt\nsecrets.txt", "\x1b]0;pwned\x07", "ok.txt", "back\rspace", "c1\xc2\x9b2J"} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := f.sb.ListFiles(context.Background(), "names", "", false)
	if err != nil {
		t.Fatal(err)
	}
	want := `names/\x1b]0;pwned\x07` + "\n" + `names/back\rspace` + "\n" + `names/c1\u009b2J` + "\n" +
		`names/notes.txt\nsecrets.txt` + "\n" + "names/ok.txt"
	if res.Output != want {
		t.Errorf("listing:\n%q\nwant\n%q", res.Output, want)
	}
}
