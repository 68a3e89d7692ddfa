package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Difference is the first path where a work dir and a snapshot differ, in path order.
type Difference struct {
	Path string // relative to the work dir, slash-separated
	What string // what differs, e.g. "content differs (size 12 in the snapshot, 14 in the work dir)"
}

func (d *Difference) String() string { return d.Path + ": " + d.What }

// Compare reads dir (without storing anything, and without the store's limits) and
// returns the first path where it differs from the snapshot root, or nil when dir is
// exactly the snapshot: the same paths, types, modes, contents and symlink targets.
func (s *Store) Compare(root, dir string) (*Difference, error) {
	want, err := s.Manifest(root)
	if err != nil {
		return nil, err
	}
	scan := &Store{Dir: s.Dir}
	got, err := scan.walk(dir, func(rel string, fi fs.FileInfo) (string, error) {
		h, _, err := s.hashFile(filepath.Join(dir, filepath.FromSlash(rel)), false)
		return h, err
	})
	if re, ok := errors.AsType[*RefusedError](err); ok {
		return &Difference{Path: re.Path, What: re.Reason + " (no snapshot holds it)"}, nil
	}
	if err != nil {
		return nil, err
	}
	return firstDifference(want.Entries, got.Entries), nil
}

// firstDifference merges two sorted entry lists and describes the first mismatch.
func firstDifference(want, got []Entry) *Difference {
	i, j := 0, 0
	for i < len(want) || j < len(got) {
		switch {
		case j >= len(got) || (i < len(want) && want[i].Path < got[j].Path):
			return &Difference{want[i].Path, fmt.Sprintf("missing from the work dir (a %s in the snapshot)", kindName(want[i].Type))}
		case i >= len(want) || got[j].Path < want[i].Path:
			return &Difference{got[j].Path, fmt.Sprintf("not in the snapshot (a %s in the work dir)", kindName(got[j].Type))}
		}
		w, g := want[i], got[j]
		switch {
		case w.Type != g.Type:
			return &Difference{w.Path, fmt.Sprintf("a %s in the snapshot, a %s in the work dir", kindName(w.Type), kindName(g.Type))}
		case w.Mode != g.Mode:
			return &Difference{w.Path, fmt.Sprintf("mode %04o in the snapshot, %04o in the work dir", w.Mode, g.Mode)}
		case w.Size != g.Size:
			return &Difference{w.Path, fmt.Sprintf("content differs (size %d in the snapshot, %d in the work dir)", w.Size, g.Size)}
		case w.Hash != g.Hash:
			return &Difference{w.Path, fmt.Sprintf("content differs (same size, sha256 %.12s… in the snapshot, %.12s… in the work dir)", w.Hash, g.Hash)}
		case w.Target != g.Target:
			return &Difference{w.Path, fmt.Sprintf("symlink to %q in the snapshot, to %q in the work dir", w.Target, g.Target)}
		}
		i, j = i+1, j+1
	}
	return nil
}

func kindName(t byte) string {
	switch t {
	case TypeFile:
		return "file"
	case TypeDir:
		return "directory"
	}
	return "symlink"
}

// Restore makes dir exactly the snapshot root: it removes what the snapshot does not
// hold (or holds as another type), then writes every directory, file and symlink in
// path order. It follows no symlink: dir itself must not be one, every parent it
// writes under is checked to be a directory, files are written to a temporary name in
// their directory and renamed over whatever was there, and a blob is checked against
// its hash as it is copied. dir is created when missing.
func (s *Store) Restore(root, dir string) error {
	m, err := s.Manifest(root)
	if err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	} else if err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("restoring snapshot %.12s…: %s is not a directory (a symlink is not followed)", root, dir)
	}
	byPath := make(map[string]*Entry, len(m.Entries))
	for i := range m.Entries {
		byPath[m.Entries[i].Path] = &m.Entries[i]
	}
	if err := prune(dir, byPath); err != nil {
		return fmt.Errorf("restoring snapshot %.12s… into %s: %w", root, dir, err)
	}
	for _, e := range m.Entries {
		if err := s.restoreEntry(dir, e); err != nil {
			return fmt.Errorf("restoring snapshot %.12s… into %s: %s: %w", root, dir, e.Path, err)
		}
	}
	// Directory modes last, deepest first: a read-only directory is written into first.
	for _, e := range slices.Backward(m.Entries) {
		if e.Type == TypeDir {
			if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(e.Path)), e.Mode); err != nil {
				return err
			}
		}
	}
	return nil
}

// prune removes from dir every path the snapshot does not hold with the same type,
// and every symlink whose target differs. RemoveAll removes a link, not what it points to.
func prune(dir string, want map[string]*Entry) error {
	return filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		e, ok := want[filepath.ToSlash(rel)]
		keep := ok && e.Type == entryType(d.Type())
		if keep && e.Type == TypeSymlink {
			t, err := os.Readlink(p)
			keep = err == nil && filepath.ToSlash(t) == e.Target
		}
		if keep {
			return nil
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		if d.IsDir() {
			return fs.SkipDir
		}
		return nil
	})
}

func entryType(t fs.FileMode) byte {
	switch t.Type() {
	case fs.ModeDir:
		return TypeDir
	case fs.ModeSymlink:
		return TypeSymlink
	case 0:
		return TypeFile
	}
	return 0
}

// restoreEntry writes one entry under dir, its parent checked to be a real directory.
func (s *Store) restoreEntry(dir string, e Entry) error {
	target := filepath.Join(dir, filepath.FromSlash(e.Path))
	parent := filepath.Dir(target)
	if err := realDir(dir, parent); err != nil {
		return err
	}
	switch e.Type {
	case TypeDir:
		fi, err := os.Lstat(target)
		if err == nil && fi.IsDir() {
			return os.Chmod(target, 0o700)
		}
		return os.Mkdir(target, 0o700)
	case TypeSymlink:
		if t, err := os.Readlink(target); err == nil && filepath.ToSlash(t) == e.Target {
			return nil
		}
		if err := os.RemoveAll(target); err != nil {
			return err
		}
		return os.Symlink(filepath.FromSlash(e.Target), target)
	}
	return s.restoreFile(parent, target, e)
}

// realDir checks that every component of p from root down is a directory, not a link.
func realDir(root, p string) error {
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return err
	}
	cur := root
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if c == "." {
			continue
		}
		cur = filepath.Join(cur, c)
		fi, err := os.Lstat(cur)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory (a symlink is not followed)", cur)
		}
	}
	return nil
}

// restoreFile copies the blob to a temporary file beside target, checks its hash and
// renames it over target.
func (s *Store) restoreFile(parent, target string, e Entry) error {
	src, err := os.Open(s.blobPath(e.Hash))
	if err != nil {
		return fmt.Errorf("blob %.12s…: %w", e.Hash, err)
	}
	defer src.Close()
	tmp, err := os.CreateTemp(parent, ".spine-restore-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), src)
	if err == nil {
		err = tmp.Chmod(e.Mode)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != e.Hash {
		return fmt.Errorf("blob %.12s… holds content hashing to %.12s…: the store was altered", e.Hash, got)
	}
	return os.Rename(tmp.Name(), target)
}
