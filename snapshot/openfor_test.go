package snapshot

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenFor: a store for a run takes a first snapshot of its work dir, and one that
// would lie inside the work dir is refused.
func TestOpenFor(t *testing.T) {
	state, work := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "a.txt"), []byte("a"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenFor(state, work); err != nil {
		t.Fatalf("open for %s: %v", work, err)
	}
	inner := filepath.Join(work, "state")
	if _, err := OpenFor(inner, work); err == nil || !strings.Contains(err.Error(), "is inside the work dir") {
		t.Errorf("a store inside the work dir: %v", err)
	}
	for _, c := range []struct {
		path, dir string
		want      bool
	}{{"/a/b", "/a", true}, {"/a", "/a", true}, {"/ab", "/a", false}, {"/a/../c", "/a", false}} {
		if got := inside(c.path, c.dir); got != c.want {
			t.Errorf("inside(%s, %s) = %v", c.path, c.dir, got)
		}
	}
}
