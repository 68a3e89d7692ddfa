package snapshot

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Remote is a second home for a store's objects (a fleet's object store): objects named
// by BlobName and ManifestName, each put whole or not at all. Get wraps ErrNotFound
// when the remote holds no such object. The remote is not trusted: everything fetched
// from it is checked against its hash before the store keeps it.
type Remote interface {
	Has(ctx context.Context, name string) (bool, error)
	Put(ctx context.Context, name string, r io.Reader) error
	Get(ctx context.Context, name string) (io.ReadCloser, error)
}

// BlobName and ManifestName are the names of a file's content and of a snapshot's
// manifest in a Remote.
func BlobName(hash string) string     { return "blob/" + hash }
func ManifestName(root string) string { return "manifest/" + root }

// TransferStats says what a Push or Fetch moved.
type TransferStats struct {
	Blobs int   // file contents sent or fetched (those already there are not)
	Bytes int64 // their bytes
}

// Push sends to r the objects of snapshot root that r lacks: the blobs first, the
// manifest last, so that a manifest in r means every blob it names is there too (and a
// root r holds is not looked into again).
func (s *Store) Push(ctx context.Context, root string, r Remote) (TransferStats, error) {
	var st TransferStats
	if ok, err := r.Has(ctx, ManifestName(root)); err != nil || ok {
		return st, err
	}
	m, err := s.Manifest(root)
	if err != nil {
		return st, err
	}
	for _, e := range uniqueBlobs(m) {
		ok, err := r.Has(ctx, BlobName(e.Hash))
		if err != nil {
			return st, err
		}
		if ok {
			continue
		}
		f, err := os.Open(s.blobPath(e.Hash))
		if err != nil {
			return st, fmt.Errorf("snapshot %.12s…: %s: blob %.12s…: %w", root, e.Path, e.Hash, err)
		}
		err = r.Put(ctx, BlobName(e.Hash), f)
		f.Close()
		if err != nil {
			return st, fmt.Errorf("snapshot %.12s…: sending blob %.12s… (%s): %w", root, e.Hash, e.Path, err)
		}
		st.Blobs++
		st.Bytes += e.Size
	}
	if err := r.Put(ctx, ManifestName(root), bytes.NewReader(m.Encode())); err != nil {
		return st, fmt.Errorf("snapshot %.12s…: sending its manifest: %w", root, err)
	}
	return st, nil
}

// FetchError is an object of a snapshot that could not be fetched from a Remote whole
// and true to its hash: missing, corrupt, over the store's limits, or unreadable.
type FetchError struct {
	Root   string
	Object string // the object's name in the remote
	Path   string // the file it holds, "" for the manifest
	Err    error
}

func (e *FetchError) Error() string {
	what := "its manifest"
	if e.Path != "" {
		what = fmt.Sprintf("the content of %s", e.Path)
	}
	return fmt.Sprintf("fetching snapshot %s: %s (%s): %v", e.Root, what, e.Object, e.Err)
}

func (e *FetchError) Unwrap() error { return e.Err }

// ErrCorrupt is an object whose bytes do not hash to its name.
var ErrCorrupt = errors.New("corrupt: its bytes do not hash to its name")

// Fetch brings snapshot root from r into the store, fetching only the blobs the store
// lacks. Every object is checked before it is kept: the manifest must hash to root and
// parse, the snapshot must be within the store's Limits (as Take's would), and each
// blob must have the size the manifest says and hash to its name. The manifest is kept
// last, so a root the store holds has all its blobs. A failure is a *FetchError.
func (s *Store) Fetch(ctx context.Context, root string, r Remote) (TransferStats, error) {
	var st TransferStats
	if !isHash(root) {
		return st, fmt.Errorf("snapshot %q: expected a root hash of 64 lowercase hex digits", root)
	}
	fail := func(obj, path string, err error) (TransferStats, error) {
		return st, &FetchError{Root: root, Object: obj, Path: path, Err: err}
	}
	data, err := s.getAll(ctx, r, ManifestName(root), maxManifestBytes(s.Limits))
	if err != nil {
		return fail(ManifestName(root), "", err)
	}
	if hashHex(data) != root {
		return fail(ManifestName(root), "", ErrCorrupt)
	}
	m, err := ParseManifest(ManifestName(root), data)
	if err != nil {
		return fail(ManifestName(root), "", err)
	}
	_, size := m.Files()
	if lim := s.Limits; lim.MaxFiles > 0 && len(m.Entries) > lim.MaxFiles {
		return fail(ManifestName(root), "", &LimitError{Dir: ManifestName(root), What: "entries", Limit: int64(lim.MaxFiles), Seen: int64(len(m.Entries))})
	} else if lim.MaxBytes > 0 && size > lim.MaxBytes {
		return fail(ManifestName(root), "", &LimitError{Dir: ManifestName(root), What: "bytes", Limit: lim.MaxBytes, Seen: size})
	}
	for _, e := range uniqueBlobs(m) {
		if s.hasBlob(e.Hash) {
			continue
		}
		if err := s.fetchBlob(ctx, r, e); err != nil {
			return fail(BlobName(e.Hash), e.Path, err)
		}
		st.Blobs++
		st.Bytes += e.Size
	}
	if _, err := s.saveManifest(m); err != nil {
		return st, err
	}
	return st, nil
}

// fetchBlob copies one blob from r into the store through a temporary file, reading at
// most one byte more than its size, and keeps it only if its size and hash are right.
func (s *Store) fetchBlob(ctx context.Context, r Remote, e Entry) error {
	rc, err := r.Get(ctx, BlobName(e.Hash))
	if err != nil {
		return err
	}
	defer rc.Close()
	tmp, err := os.CreateTemp(filepath.Join(s.Dir, "tmp"), "fetch-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(rc, e.Size+1))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return err
	case n != e.Size:
		return fmt.Errorf("%w (%d bytes, the manifest says %d)", ErrCorrupt, n, e.Size)
	case hex.EncodeToString(h.Sum(nil)) != e.Hash:
		return ErrCorrupt
	}
	if err := os.MkdirAll(filepath.Dir(s.blobPath(e.Hash)), 0o700); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), s.blobPath(e.Hash))
}

// getAll reads a whole object of at most max bytes.
func (s *Store) getAll(ctx context.Context, r Remote, name string, max int64) ([]byte, error) {
	rc, err := r.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("over %d bytes: more than a manifest within the store's limits", max)
	}
	return data, nil
}

// maxManifestBytes bounds a manifest within lim: a line per entry, each at most
// maxManifestLine.
func maxManifestBytes(lim Limits) int64 {
	n := int64(lim.MaxFiles)
	if n <= 0 {
		n = int64(DefaultLimits.MaxFiles)
	}
	return (n + 1) * (maxManifestLine + 1)
}

// uniqueBlobs is the file entries of m, one per content hash, in path order.
func uniqueBlobs(m *Manifest) []Entry {
	seen := map[string]bool{}
	var out []Entry
	for _, e := range m.Entries {
		if e.Type == TypeFile && !seen[e.Hash] {
			seen[e.Hash] = true
			out = append(out, e)
		}
	}
	return out
}
