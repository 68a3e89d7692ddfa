package snapshot

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// memRemote is a Remote in memory that counts what is put.
type memRemote struct {
	objs map[string][]byte
	puts int
}

func (r *memRemote) Has(_ context.Context, name string) (bool, error) {
	_, ok := r.objs[name]
	return ok, nil
}

func (r *memRemote) Put(_ context.Context, name string, rd io.Reader) error {
	b, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	r.objs[name] = b
	r.puts++
	return nil
}

func (r *memRemote) Get(_ context.Context, name string) (io.ReadCloser, error) {
	b, ok := r.objs[name]
	if !ok {
		return nil, fmt.Errorf("%s: %w", name, ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// TestPushFetch: a snapshot pushed from one store and fetched into another restores
// the same files; a second push sends nothing, an incremental one only the new
// content; a fetch takes only what the store lacks.
func TestPushFetch(t *testing.T) {
	ctx := context.Background()
	a, b := store(t), store(t)
	r := &memRemote{objs: map[string][]byte{}}
	dir := tree(t, sample)
	root, _ := take(t, a, dir)
	st, err := a.Push(ctx, root, r)
	if err != nil || st.Blobs != 3 || r.puts != 4 {
		t.Fatalf("first push: %+v, %d puts, %v; want 3 blobs and the manifest", st, r.puts, err)
	}
	if st, err := a.Push(ctx, root, r); err != nil || st.Blobs != 0 || r.puts != 4 {
		t.Fatalf("second push of the same root: %+v, %d puts, %v; want nothing sent", st, r.puts, err)
	}
	write(t, dir, map[string]string{"new.txt": "new"})
	next, _ := take(t, a, dir)
	if st, err := a.Push(ctx, next, r); err != nil || st.Blobs != 1 || r.puts != 6 {
		t.Fatalf("incremental push: %+v, %d puts, %v; want the one new blob and the manifest", st, r.puts, err)
	}
	if st, err := b.Fetch(ctx, root, r); err != nil || st.Blobs != 3 {
		t.Fatalf("fetch: %+v, %v", st, err)
	}
	if st, err := b.Fetch(ctx, next, r); err != nil || st.Blobs != 1 {
		t.Fatalf("second fetch: %+v, %v; want only the new blob", st, err)
	}
	out := filepath.Join(t.TempDir(), "w")
	if err := b.Restore(next, out); err != nil {
		t.Fatal(err)
	}
	if d, err := a.Compare(next, out); err != nil || d != nil {
		t.Fatalf("restored from the fetched snapshot: %v, %v", d, err)
	}
}

// TestFetchRefuses: what a fetch must not keep: a missing, corrupt or oversized
// object is a *FetchError naming the object, and the store holds no such root after it.
func TestFetchRefuses(t *testing.T) {
	ctx := context.Background()
	src := store(t)
	root, _ := take(t, src, tree(t, map[string]string{"a.txt": "abc", "b.txt": "defg"}))
	m, _ := src.Manifest(root)
	blobA := BlobName(m.Entries[0].Hash)
	for _, tc := range []struct {
		name   string
		change func(objs map[string][]byte)
		limits Limits
		want   string
	}{
		{"manifest missing", func(o map[string][]byte) { delete(o, ManifestName(root)) }, DefaultLimits, "its manifest (manifest/" + root + "): manifest/" + root + ": no such snapshot"},
		{"manifest corrupt", func(o map[string][]byte) { o[ManifestName(root)] = append(o[ManifestName(root)], 'x') }, DefaultLimits, "corrupt"},
		{"blob missing", func(o map[string][]byte) { delete(o, blobA) }, DefaultLimits, "the content of a.txt (" + blobA + "): " + blobA + ": no such snapshot"},
		{"blob corrupt", func(o map[string][]byte) { o[blobA] = []byte("abd") }, DefaultLimits, "the content of a.txt (" + blobA + "): corrupt"},
		{"blob longer", func(o map[string][]byte) { o[blobA] = []byte("abcd") }, DefaultLimits, "4 bytes, the manifest says 3"},
		{"over the limits", func(map[string][]byte) {}, Limits{MaxBytes: 5, MaxFiles: 100}, "more than 0 MiB"},
	} {
		r := &memRemote{objs: map[string][]byte{}}
		if _, err := src.Push(ctx, root, r); err != nil {
			t.Fatal(err)
		}
		tc.change(r.objs)
		dst := store(t)
		dst.Limits = tc.limits
		_, err := dst.Fetch(ctx, root, r)
		var fe *FetchError
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v; want a FetchError saying %q", tc.name, err, tc.want)
			continue
		}
		if _, err := dst.Manifest(root); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: the store holds the root after a failed fetch (%v)", tc.name, err)
		}
	}
}

// TestGCReferencedDryRun: roots referenced (by traces) are kept with their blobs; one
// the store lacks is reported, not an error; a dry run lists what would go and removes
// nothing.
func TestGCReferencedDryRun(t *testing.T) {
	s := store(t)
	dir := tree(t, map[string]string{"a": "a"})
	first, _ := take(t, s, dir)
	write(t, dir, map[string]string{"b": strings.Repeat("b", 10)})
	second, _ := take(t, s, dir)
	write(t, dir, map[string]string{"c": "ccc"})
	third, _ := take(t, s, dir)
	gone := strings.Repeat("e", 64)
	opts := GCOptions{Referenced: []string{second, gone}, DryRun: true}
	res, err := s.GC(nil, opts)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range res.Gone {
		names = append(names, g.Root+g.Blob)
	}
	want := []string{first, third}
	if first > third {
		want = []string{third, first}
	}
	if res.Manifests != 2 || res.Blobs != 1 || res.Bytes != 3 || res.Kept != 1 || len(res.Missing) != 1 || res.Missing[0] != gone ||
		len(names) != 3 || names[0] != want[0] || names[1] != want[1] {
		t.Fatalf("dry run: %+v (gone %q); want the first and third snapshots and c's 3 bytes, %s missing", res, names, gone)
	}
	if l, _ := s.List(); len(l) != 3 {
		t.Fatalf("a dry run removed snapshots: %d left", len(l))
	}
	opts.DryRun = false
	if res2, err := s.GC(nil, opts); err != nil || res2.Manifests != 2 || res2.Blobs != 1 {
		t.Fatalf("gc: %+v, %v", res2, err)
	}
	if err := s.Restore(second, filepath.Join(t.TempDir(), "w")); err != nil {
		t.Fatalf("the referenced snapshot after gc: %v", err)
	}
}
