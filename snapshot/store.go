package snapshot

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Store is a snapshot store in a directory (by convention "snapshots" in the state
// directory):
//
//	blobs/ab/abcdef…   file contents by SHA-256, written once
//	manifests/<root>   manifests by root hash
//	index/<key>        per work dir, what the last Take saw of each file (see Take)
//
// Every file is written to a temporary name and renamed into place, so a reader (or a
// second process) sees a blob or manifest whole or not at all.
type Store struct {
	Dir    string
	Limits Limits
}

// Limits bound what Take stores of one work dir.
type Limits struct {
	MaxBytes int64 // total size of the regular files
	MaxFiles int   // entries of any type
}

// DefaultLimits is what Open sets: a work dir of code and data a run edits, not a
// dataset. Past it, a snapshot would cost more than it saves and a run should say so.
var DefaultLimits = Limits{MaxBytes: 256 << 20, MaxFiles: 20000}

// DefaultDir is the store's directory in a state directory.
func DefaultDir(stateDir string) string { return filepath.Join(stateDir, "snapshots") }

// Open returns the store in dir, creating it (mode 0700) if needed.
func Open(dir string) (*Store, error) {
	for _, sub := range []string{"blobs", "manifests", "index", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return nil, fmt.Errorf("snapshot store: %w", err)
		}
	}
	return &Store{Dir: dir, Limits: DefaultLimits}, nil
}

func (s *Store) blobPath(hash string) string {
	return filepath.Join(s.Dir, "blobs", hash[:2], hash)
}

func (s *Store) manifestPath(root string) string {
	return filepath.Join(s.Dir, "manifests", root)
}

// hasBlob reports whether the blob is stored.
func (s *Store) hasBlob(hash string) bool {
	_, err := os.Lstat(s.blobPath(hash))
	return err == nil
}

// writeAtomic writes data through a temporary file in the store and renames it to
// path; a path that already exists is left as it is (content-addressed: same bytes).
func (s *Store) writeAtomic(path string, fill func(w io.Writer) error) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	tmp, err := os.CreateTemp(filepath.Join(s.Dir, "tmp"), "w-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := fill(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// saveManifest stores m and returns its root hash.
func (s *Store) saveManifest(m *Manifest) (string, error) {
	data := m.Encode()
	root := hashHex(data)
	err := s.writeAtomic(s.manifestPath(root), func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	return root, err
}

// ErrNotFound is a root hash the store does not hold.
var ErrNotFound = errors.New("no such snapshot")

// Manifest reads the snapshot root and checks that its bytes still hash to root.
func (s *Store) Manifest(root string) (*Manifest, error) {
	if !isHash(root) {
		return nil, fmt.Errorf("snapshot %q: expected a root hash of 64 lowercase hex digits", root)
	}
	data, err := os.ReadFile(s.manifestPath(root))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("snapshot %s: %w in %s", root, ErrNotFound, s.Dir)
	}
	if err != nil {
		return nil, err
	}
	if got := hashHex(data); got != root {
		return nil, fmt.Errorf("snapshot %s: the stored manifest hashes to %s: the store was altered", root, got)
	}
	return ParseManifest(s.manifestPath(root), data)
}

// Info is one stored snapshot as List shows it.
type Info struct {
	Root    string
	Stored  time.Time // when the manifest was written
	Entries int
	Files   int
	Bytes   int64
}

// List returns every stored snapshot, oldest first (root hash breaks ties).
func (s *Store) List() ([]Info, error) {
	des, err := os.ReadDir(filepath.Join(s.Dir, "manifests"))
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, de := range des {
		if !isHash(de.Name()) {
			continue
		}
		m, err := s.Manifest(de.Name())
		if err != nil {
			return nil, err
		}
		fi, err := de.Info()
		if err != nil {
			return nil, err
		}
		files, bytes := m.Files()
		out = append(out, Info{Root: de.Name(), Stored: fi.ModTime(), Entries: len(m.Entries), Files: files, Bytes: bytes})
	}
	slices.SortFunc(out, func(a, b Info) int {
		if c := a.Stored.Compare(b.Stored); c != 0 {
			return c
		}
		return strings.Compare(a.Root, b.Root)
	})
	return out, nil
}

// GCOptions say what else GC keeps, and whether it removes anything.
type GCOptions struct {
	// Referenced are roots something outside the store still uses (the traces that
	// record them): kept with everything they reference when the store holds them; one
	// it does not hold is no error (a trace may come from another machine), only
	// counted in GCResult.Missing.
	Referenced []string
	// DryRun removes nothing: the result says what would go.
	DryRun bool
}

// GCResult is what GC removed (with DryRun: would remove).
type GCResult struct {
	Manifests int
	Blobs     int
	Bytes     int64
	Kept      int      // snapshots kept
	Missing   []string // referenced roots the store does not hold, sorted
	Gone      []Gone   // every object removed: snapshots first, then blobs, each sorted by name
}

// Gone is one object GC removed: a snapshot (Root) or a file content (Blob).
type Gone struct {
	Root, Blob string
	Bytes      int64 // a blob's size
}

// String is the object as GC's dry run lists it: "snapshot ROOT" or "file content
// HASH (N bytes)".
func (g Gone) String() string {
	if g.Root != "" {
		return "snapshot " + g.Root
	}
	return fmt.Sprintf("file content %s (%d bytes)", g.Blob, g.Bytes)
}

// GC removes every snapshot neither in keep nor in opts.Referenced, and every blob no
// kept snapshot references. A root in keep that the store does not hold is an error,
// before anything is removed: a typo must not empty the store.
func (s *Store) GC(keep []string, opts GCOptions) (GCResult, error) {
	var res GCResult
	live := map[string]bool{}
	kept := map[string]bool{}
	hold := func(root string) error {
		m, err := s.Manifest(root)
		if err != nil {
			return err
		}
		kept[root] = true
		for _, e := range m.Entries {
			if e.Type == TypeFile {
				live[e.Hash] = true
			}
		}
		return nil
	}
	for _, root := range keep {
		if err := hold(root); err != nil {
			return res, err
		}
	}
	missing := map[string]bool{}
	for _, root := range opts.Referenced {
		if kept[root] || missing[root] {
			continue
		}
		if _, err := os.Lstat(s.manifestPath(root)); isHash(root) && errors.Is(err, os.ErrNotExist) {
			missing[root] = true
			continue
		}
		if err := hold(root); err != nil {
			return res, err
		}
	}
	for r := range missing {
		res.Missing = append(res.Missing, r)
	}
	slices.Sort(res.Missing)
	res.Kept = len(kept)
	remove := func(path string) error {
		if opts.DryRun {
			return nil
		}
		return os.Remove(path)
	}
	des, err := os.ReadDir(filepath.Join(s.Dir, "manifests"))
	if err != nil {
		return res, err
	}
	for _, de := range des {
		if kept[de.Name()] {
			continue
		}
		if err := remove(filepath.Join(s.Dir, "manifests", de.Name())); err != nil {
			return res, err
		}
		res.Manifests++
		res.Gone = append(res.Gone, Gone{Root: de.Name()})
	}
	shards, err := os.ReadDir(filepath.Join(s.Dir, "blobs"))
	if err != nil {
		return res, err
	}
	for _, sh := range shards {
		dir := filepath.Join(s.Dir, "blobs", sh.Name())
		blobs, err := os.ReadDir(dir)
		if err != nil {
			return res, err
		}
		for _, b := range blobs {
			if live[b.Name()] {
				continue
			}
			g := Gone{Blob: b.Name()}
			if fi, err := b.Info(); err == nil {
				g.Bytes = fi.Size()
			}
			if err := remove(filepath.Join(dir, b.Name())); err != nil {
				return res, err
			}
			res.Blobs++
			res.Bytes += g.Bytes
			res.Gone = append(res.Gone, g)
		}
	}
	return res, nil
}

// OpenFor opens the store in stateDir's default place for a run that snapshots workdir,
// and takes a first snapshot of it: the check that workdir can be snapshotted (within
// the limits, no file a snapshot cannot hold), which also makes the run's own first
// snapshot incremental. A store inside workdir is refused: the run would snapshot it.
func OpenFor(stateDir, workdir string) (*Store, error) {
	dir := DefaultDir(stateDir)
	if inside(dir, workdir) {
		return nil, fmt.Errorf("the snapshot store %s is inside the work dir %s", dir, workdir)
	}
	s, err := Open(dir)
	if err != nil {
		return nil, err
	}
	if _, _, err := s.Take(workdir); err != nil {
		return nil, err
	}
	return s, nil
}

// inside reports whether path is dir or lies under it, symlinks resolved as far as they
// exist.
func inside(path, dir string) bool {
	abs := func(p string) string {
		a, err := filepath.Abs(p)
		if err != nil {
			return p
		}
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r
		}
		return a
	}
	p, d := abs(path), abs(dir)
	rel, err := filepath.Rel(d, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
