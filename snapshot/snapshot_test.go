package snapshot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree writes files (path → content; a content starting with "->" makes a symlink, a
// path ending in / a directory) under a new temporary dir.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	write(t, dir, files)
	return dir
}

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	old := time.Now().Add(-time.Hour) // not racily clean: incremental Takes may trust them
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		switch {
		case strings.HasSuffix(p, "/"):
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
		case strings.HasPrefix(c, "->"):
			os.Remove(full)
			if err := os.Symlink(c[2:], full); err != nil {
				t.Fatal(err)
			}
		default:
			if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(full, old, old); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func store(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "snapshots"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func take(t *testing.T, s *Store, dir string) (string, TakeStats) {
	t.Helper()
	root, st, err := s.Take(dir)
	if err != nil {
		t.Fatal(err)
	}
	return root, st
}

var sample = map[string]string{
	"README":        "hello\n",
	"src/main.go":   "package main\n",
	"src/copy.go":   "package main\n", // same content: one blob
	"src/a-b/x.txt": "x",
	"empty/":        "",
	"link":          "->src/main.go",
	"src/up":        "->../README",
}

func TestTakeRestoreCompare(t *testing.T) {
	s := store(t)
	dir := tree(t, sample)
	if err := os.Chmod(filepath.Join(dir, "README"), 0o755); err != nil {
		t.Fatal(err)
	}
	root, st := take(t, s, dir)
	if st.Files != 4 || st.Hashed != 4 || st.Reused != 0 {
		t.Fatalf("first take: %+v, want 4 files hashed", st)
	}
	if d, err := s.Compare(root, dir); err != nil || d != nil {
		t.Fatalf("Compare of the dir just taken: %v, %v; want no difference", d, err)
	}
	blobs, _ := filepath.Glob(filepath.Join(s.Dir, "blobs", "*", "*"))
	if len(blobs) != 3 {
		t.Errorf("%d blobs for 3 distinct contents: %v", len(blobs), blobs)
	}

	outside := t.TempDir()
	for _, tc := range []struct {
		name string
		edit func(dir string)
		path string
		what string
	}{
		{"edited", func(d string) { os.WriteFile(filepath.Join(d, "src/main.go"), []byte("package niam\n"), 0o644) }, "src/main.go", "content differs (same size"},
		{"grown", func(d string) { os.WriteFile(filepath.Join(d, "README"), []byte("hello, world\n"), 0o755) }, "README", "size 6 in the snapshot, 13"},
		{"removed", func(d string) { os.Remove(filepath.Join(d, "src/copy.go")) }, "src/copy.go", "missing from the work dir"},
		{"added", func(d string) { os.WriteFile(filepath.Join(d, "new"), nil, 0o644) }, "new", "not in the snapshot"},
		{"mode", func(d string) { os.Chmod(filepath.Join(d, "README"), 0o600) }, "README", "mode 0755 in the snapshot, 0600"},
		{"relinked", func(d string) { os.Remove(filepath.Join(d, "link")); os.Symlink("README", filepath.Join(d, "link")) }, "link", `symlink to "src/main.go" in the snapshot, to "README"`},
		// A tool swaps a directory for a link to outside: Restore must not write there.
		{"dir to link", func(d string) {
			os.RemoveAll(filepath.Join(d, "src"))
			os.Symlink(outside, filepath.Join(d, "src"))
		}, "src", "is absolute: it points outside the dir (no snapshot holds it)"},
		{"dir to inside link", func(d string) {
			os.RemoveAll(filepath.Join(d, "src/a-b"))
			os.Symlink("../empty", filepath.Join(d, "src/a-b"))
		}, "src/a-b", "a directory in the snapshot, a symlink in the work dir"},
		{"fifo", func(d string) { syscall.Mkfifo(filepath.Join(d, "empty", "pipe"), 0o644) }, "empty/pipe", "FIFO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.edit(dir)
			d, err := s.Compare(root, dir)
			if err != nil {
				t.Fatal(err)
			}
			if d == nil || d.Path != tc.path || !strings.Contains(d.What, tc.what) {
				t.Fatalf("Compare: %v, want %s: …%s…", d, tc.path, tc.what)
			}
			if err := s.Restore(root, dir); err != nil {
				t.Fatal(err)
			}
			if d, err := s.Compare(root, dir); err != nil || d != nil {
				t.Fatalf("after Restore: %v, %v; want no difference", d, err)
			}
			if des, _ := os.ReadDir(outside); len(des) != 0 {
				t.Fatalf("Restore wrote through a symlink into %s: %v", outside, des)
			}
		})
	}

	fresh := filepath.Join(t.TempDir(), "fork")
	if err := s.Restore(root, fresh); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Compare(root, fresh); d != nil {
		t.Fatalf("restore into a new dir: %v", d)
	}
	if got, _ := os.Readlink(filepath.Join(fresh, "src/up")); got != "../README" {
		t.Errorf("symlink restored as %q", got)
	}
}

func TestRestoreRefusesLinkedDir(t *testing.T) {
	s := store(t)
	root, _ := take(t, s, tree(t, sample))
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "wd")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	err := s.Restore(root, link)
	if err == nil || !strings.Contains(err.Error(), "not a directory (a symlink is not followed)") {
		t.Fatalf("Restore into a symlink: %v", err)
	}
}

func TestTakeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, path, target, want string
	}{
		{"absolute", "l", "/etc/passwd", "absolute"},
		{"up and out", "l", "../x", "points outside"},
		{"deeper up and out", "a/l", "../../x", "points outside"},
		{"up after a name", "l", "a/../../x", "after a name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := tree(t, map[string]string{"a/": "", tc.path: "->" + tc.target})
			_, _, err := store(t).Take(dir)
			re, ok := errors.AsType[*RefusedError](err)
			if !ok || re.Path != tc.path || !strings.Contains(re.Reason, tc.want) {
				t.Fatalf("Take: %v, want %s refused: …%s…", err, tc.path, tc.want)
			}
		})
	}
	t.Run("fifo", func(t *testing.T) {
		dir := tree(t, map[string]string{"a": "x"})
		if err := syscall.Mkfifo(filepath.Join(dir, "p"), 0o600); err != nil {
			t.Skip(err)
		}
		_, _, err := store(t).Take(dir)
		if re, ok := errors.AsType[*RefusedError](err); !ok || re.Path != "p" || !strings.Contains(re.Reason, "FIFO") {
			t.Fatalf("Take: %v", err)
		}
	})
}

func TestLimits(t *testing.T) {
	dir := tree(t, map[string]string{"a": "0123456789", "b": "0123456789", "c/": ""})
	for _, tc := range []struct {
		lim  Limits
		what string
		msg  string
	}{
		{Limits{MaxFiles: 2}, "entries", "more than 2 entries"},
		{Limits{MaxBytes: 15}, "bytes", "limit is 15 bytes"},
	} {
		s := store(t)
		s.Limits = tc.lim
		_, _, err := s.Take(dir)
		le, ok := errors.AsType[*LimitError](err)
		if !ok || le.What != tc.what || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("limits %+v: %v", tc.lim, err)
		}
	}
	s := store(t)
	s.Limits = Limits{MaxFiles: 3, MaxBytes: 20}
	if _, _, err := s.Take(dir); err != nil {
		t.Errorf("a dir at the limits: %v", err)
	}
}

func TestTakeIncremental(t *testing.T) {
	s := store(t)
	dir := tree(t, sample)
	first, _ := take(t, s, dir)
	again, st := take(t, s, dir)
	if again != first || st.Hashed != 0 || st.Reused != 4 {
		t.Fatalf("unchanged dir: root %s (first %s), %+v; want the same root, all 4 reused", again, first, st)
	}
	// Same size, new content, a new mtime: read again.
	write(t, dir, map[string]string{"src/main.go": "package niam\n"})
	os.Chtimes(filepath.Join(dir, "src/main.go"), time.Now().Add(-time.Minute), time.Now().Add(-time.Minute))
	third, st := take(t, s, dir)
	if third == first || st.Hashed != 1 || st.Reused != 3 {
		t.Fatalf("one file edited: %+v (root changed: %v)", st, third != first)
	}
	// A file written just now is racily clean: read again next time.
	os.WriteFile(filepath.Join(dir, "README"), []byte("fresh!\n"), 0o644)
	take(t, s, dir)
	_, st = take(t, s, dir)
	if st.Hashed != 1 {
		t.Fatalf("a racily clean file was reused unread: %+v", st)
	}
	// A blob removed by GC is not reused from the index.
	if _, err := s.GC(nil, GCOptions{}); err != nil {
		t.Fatal(err)
	}
	_, st = take(t, s, dir)
	if st.Reused != 0 {
		t.Fatalf("after GC emptied the store: %+v, want every file read", st)
	}
}

func TestListShowGC(t *testing.T) {
	s := store(t)
	dir := tree(t, sample)
	first, _ := take(t, s, dir)
	write(t, dir, map[string]string{"big": strings.Repeat("b", 1000)})
	second, _ := take(t, s, dir)
	list, err := s.List()
	if err != nil || len(list) != 2 {
		t.Fatalf("List: %v, %v", list, err)
	}
	m, err := s.Manifest(second)
	if err != nil || len(m.Entries) != 10 {
		t.Fatalf("Show: %v, %v", m, err)
	}
	if _, err := s.GC([]string{strings.Repeat("0", 64)}, GCOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("GC keeping an unknown root: %v", err)
	}
	if l, _ := s.List(); len(l) != 2 {
		t.Fatal("a refused GC removed snapshots")
	}
	res, err := s.GC([]string{first}, GCOptions{})
	if err != nil || res.Manifests != 1 || res.Blobs != 1 || res.Bytes != 1000 {
		t.Fatalf("GC: %+v, %v; want 1 manifest and the 1000-byte blob", res, err)
	}
	out := filepath.Join(t.TempDir(), "w")
	if err := s.Restore(first, out); err != nil {
		t.Fatalf("restoring the kept snapshot: %v", err)
	}
	if _, err := s.Manifest(second); !errors.Is(err, ErrNotFound) {
		t.Fatalf("collected snapshot: %v", err)
	}
}

func TestStoreTamper(t *testing.T) {
	s := store(t)
	root, _ := take(t, s, tree(t, map[string]string{"a": "abc"}))
	m, _ := s.Manifest(root)
	os.WriteFile(s.blobPath(m.Entries[0].Hash), []byte("abd"), 0o600)
	err := s.Restore(root, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "the store was altered") {
		t.Fatalf("Restore of an altered blob: %v", err)
	}
	os.WriteFile(s.manifestPath(root), []byte(manifestHeader+"\n"), 0o600)
	if _, err := s.Manifest(root); err == nil || !strings.Contains(err.Error(), "altered") {
		t.Fatalf("altered manifest: %v", err)
	}
}
