package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// LimitError is a work dir over the store's Limits.
type LimitError struct {
	Dir   string
	What  string // "bytes" or "entries"
	Limit int64
	Seen  int64 // at least this many when the walk stopped
}

func (e *LimitError) Error() string {
	if e.What == "bytes" {
		return fmt.Sprintf("snapshot of %s: the work dir holds more than %d MiB of files (the limit is %d bytes); snapshots are for work dirs under it: run without snapshots or with a smaller work dir",
			e.Dir, e.Limit>>20, e.Limit)
	}
	return fmt.Sprintf("snapshot of %s: the work dir holds more than %d entries (the limit); snapshots are for work dirs under it: run without snapshots or with a smaller work dir", e.Dir, e.Limit)
}

// RefusedError is a file a snapshot cannot hold: a symlink leaving the dir, a device,
// a FIFO, a socket.
type RefusedError struct {
	Path   string // relative to the work dir
	Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("snapshot refuses %s: %s", e.Path, e.Reason)
}

// seen is what a Take saw of a regular file: enough to trust its hash next time.
type seen struct {
	Path  string `json:"p"`
	Size  int64  `json:"s"`
	Mtime int64  `json:"m"` // UnixNano
	Inode uint64 `json:"i"`
	Hash  string `json:"h"`
}

// racyWindow: a file whose mtime is this close to the start of the Take that saw it may
// change again within the same mtime tick, so its hash is not reused unread.
const racyWindow = 2 * time.Second

// TakeStats says how much a Take read.
type TakeStats struct {
	Files  int   // regular files
	Hashed int   // files read and hashed
	Reused int   // files whose hash was reused (size, mtime and inode unchanged)
	Bytes  int64 // total size of the regular files
	Stored int64 // bytes written to new blobs
}

// Take stores a snapshot of dir and returns its root hash. See the package
// documentation for what it refuses and what it reuses. A Take that finds every file as
// the last one saw it writes nothing: the manifest is stored already, and so is the index.
func (s *Store) Take(dir string) (string, TakeStats, error) {
	start := time.Now()
	key, err := indexKey(dir)
	if err != nil {
		return "", TakeStats{}, err
	}
	prev := s.readIndex(key)
	var st TakeStats
	var next []seen
	m, err := s.walk(dir, func(rel string, fi fs.FileInfo) (string, error) {
		mt := fi.ModTime().UnixNano()
		ino := inode(fi)
		if p, ok := prev[rel]; ok && ino != 0 && p.Size == fi.Size() && p.Mtime == mt && p.Inode == ino && s.hasBlob(p.Hash) {
			st.Reused++
			next = append(next, p)
			return p.Hash, nil
		}
		h, stored, err := s.hashFile(filepath.Join(dir, filepath.FromSlash(rel)), true)
		if err != nil {
			return "", err
		}
		st.Hashed++
		st.Stored += stored
		if fi.ModTime().Before(start.Add(-racyWindow)) {
			next = append(next, seen{Path: rel, Size: fi.Size(), Mtime: mt, Inode: ino, Hash: h})
		}
		return h, nil
	})
	if err != nil {
		return "", st, err
	}
	st.Files, st.Bytes = m.Files()
	root, err := s.saveManifest(m)
	if err != nil {
		return "", st, err
	}
	if !sameIndex(prev, next) {
		s.writeIndex(key, next)
	}
	return root, st, nil
}

// sameIndex reports whether a Take saw every file as the previous one did: then the
// index is not written again (a snapshot after a tool call that changed nothing writes
// nothing to the store: its manifest is stored already).
func sameIndex(prev map[string]seen, next []seen) bool {
	if len(prev) != len(next) {
		return false
	}
	for _, n := range next {
		if p, ok := prev[n.Path]; !ok || p != n {
			return false
		}
	}
	return true
}

// walk reads dir into a manifest without following links; file gives a regular file's
// hash. It enforces the store's limits and refuses what a snapshot cannot hold.
func (s *Store) walk(dir string, file func(rel string, fi fs.FileInfo) (string, error)) (*Manifest, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, fmt.Errorf("snapshot of %s: not a directory", dir)
	}
	lim := s.Limits
	m := &Manifest{}
	var bytes int64
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if lim.MaxFiles > 0 && len(m.Entries) >= lim.MaxFiles {
			return &LimitError{Dir: dir, What: "entries", Limit: int64(lim.MaxFiles), Seen: int64(len(m.Entries) + 1)}
		}
		if checkPath(rel) != nil {
			return &RefusedError{rel, "a name a manifest cannot hold (a backslash or NUL)"}
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		e := Entry{Path: rel, Mode: fi.Mode().Perm()}
		switch t := fi.Mode().Type(); {
		case t == fs.ModeDir:
			e.Type = TypeDir
		case t == fs.ModeSymlink:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if err := checkTarget(rel, filepath.ToSlash(target)); err != nil {
				return &RefusedError{rel, err.Error()}
			}
			e.Type, e.Target, e.Mode = TypeSymlink, filepath.ToSlash(target), 0o777
		case t == 0:
			bytes += fi.Size()
			if lim.MaxBytes > 0 && bytes > lim.MaxBytes {
				return &LimitError{Dir: dir, What: "bytes", Limit: lim.MaxBytes, Seen: bytes}
			}
			h, err := file(rel, fi)
			if err != nil {
				return err
			}
			e.Type, e.Size, e.Hash = TypeFile, fi.Size(), h
		default:
			return &RefusedError{rel, fmt.Sprintf("a %s, not a regular file, directory or symlink", typeName(t))}
		}
		m.Entries = append(m.Entries, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(m.Entries, func(a, b Entry) int { return strings.Compare(a.Path, b.Path) })
	return m, nil
}

func typeName(t fs.FileMode) string {
	switch {
	case t&fs.ModeNamedPipe != 0:
		return "FIFO"
	case t&fs.ModeSocket != 0:
		return "socket"
	case t&fs.ModeDevice != 0:
		return "device"
	}
	return "special file (" + t.String() + ")"
}

// hashFile reads a regular file without following a link, returns its SHA-256 and,
// with store, keeps its content as a blob (returning the bytes newly stored). The
// size recorded is the walk's: a file that grows while read is read whole, and its
// hash and blob agree with each other.
func (s *Store) hashFile(path string, store bool) (string, int64, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return "", 0, err
	} else if !fi.Mode().IsRegular() {
		return "", 0, &RefusedError{path, "it stopped being a regular file while read"}
	}
	h := sha256.New()
	if !store {
		if _, err := io.Copy(h, f); err != nil {
			return "", 0, err
		}
		return hex.EncodeToString(h.Sum(nil)), 0, nil
	}
	tmp, err := os.CreateTemp(filepath.Join(s.Dir, "tmp"), "blob-*")
	if err != nil {
		return "", 0, err
	}
	defer os.Remove(tmp.Name())
	n, err := io.Copy(io.MultiWriter(h, tmp), f)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", 0, err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if s.hasBlob(sum) {
		return sum, 0, nil
	}
	if err := os.MkdirAll(filepath.Dir(s.blobPath(sum)), 0o700); err != nil {
		return "", 0, err
	}
	if err := os.Rename(tmp.Name(), s.blobPath(sum)); err != nil {
		return "", 0, err
	}
	return sum, n, nil
}

// indexKey names a work dir's index: the hash of its absolute path.
func indexKey(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return hashHex([]byte(abs)), nil
}

// readIndex reads what the last Take of the dir saw; a missing or unreadable index
// is an empty one (every file is read).
func (s *Store) readIndex(key string) map[string]seen {
	data, err := os.ReadFile(filepath.Join(s.Dir, "index", key))
	if err != nil {
		return nil
	}
	var list []seen
	if json.Unmarshal(data, &list) != nil {
		return nil
	}
	out := make(map[string]seen, len(list))
	for _, e := range list {
		if isHash(e.Hash) {
			out[e.Path] = e
		}
	}
	return out
}

// writeIndex replaces the dir's index. It is a cache: failing to write it costs the
// next Take a full read, nothing more.
func (s *Store) writeIndex(key string, list []seen) {
	data, err := json.Marshal(list)
	if err != nil {
		return
	}
	path := filepath.Join(s.Dir, "index", key)
	os.Remove(path)
	_ = s.writeAtomic(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}
