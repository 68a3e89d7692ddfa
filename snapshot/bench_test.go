package snapshot

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// benchDir is a generated work dir of 1,000 files, 50 MB in all, in 20 directories,
// with mtimes an hour old (no file is racily clean).
func benchDir(b *testing.B) (string, int64) {
	b.Helper()
	dir := b.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	const files, size = 1000, 50 << 20 / 1000
	buf := make([]byte, size)
	old := time.Now().Add(-time.Hour)
	for i := range files {
		for j := range buf {
			buf[j] = byte(rng.Uint32())
		}
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.dat", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	return dir, files * size
}

// BenchmarkSnapshotFull takes a snapshot of the work dir into an empty store: every
// file read, hashed and stored.
func BenchmarkSnapshotFull(b *testing.B) {
	dir, total := benchDir(b)
	storeDir := filepath.Join(b.TempDir(), "snapshots")
	b.SetBytes(total)
	for b.Loop() {
		b.StopTimer()
		os.RemoveAll(storeDir)
		s, err := Open(storeDir)
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if _, st, err := s.Take(dir); err != nil || st.Hashed != 1000 {
			b.Fatal(st, err)
		}
	}
}

// BenchmarkSnapshotIncremental takes a snapshot of the unchanged work dir after a
// first one: every hash reused from size, mtime and inode.
func BenchmarkSnapshotIncremental(b *testing.B) {
	dir, total := benchDir(b)
	s, err := Open(filepath.Join(b.TempDir(), "snapshots"))
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.Take(dir); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(total)
	for b.Loop() {
		if _, st, err := s.Take(dir); err != nil || st.Reused != 1000 {
			b.Fatal(st, err)
		}
	}
}

// smallDir is a run's typical work dir: 50 files of 4 KB in 5 directories, with mtimes
// an hour old.
func smallDir(b *testing.B) string {
	b.Helper()
	dir := b.TempDir()
	old := time.Now().Add(-time.Hour)
	for i := range 50 {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%5), fmt.Sprintf("f%02d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("%04096d", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(p, old, old); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// BenchmarkSnapshotSmallUnchanged is the snapshot after a tool call that changed
// nothing (a shell command that only read) of a small work dir: every hash reused,
// nothing written to the store.
func BenchmarkSnapshotSmallUnchanged(b *testing.B) {
	dir := smallDir(b)
	s, err := Open(filepath.Join(b.TempDir(), "snapshots"))
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.Take(dir); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, st, err := s.Take(dir); err != nil || st.Reused != 50 {
			b.Fatal(st, err)
		}
	}
}

// BenchmarkSnapshotSmallWrite is the snapshot after a write_file call of a small work
// dir: one file rewritten (new content each time), the others reused.
func BenchmarkSnapshotSmallWrite(b *testing.B) {
	dir := smallDir(b)
	s, err := Open(filepath.Join(b.TempDir(), "snapshots"))
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.Take(dir); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		i++
		if err := os.WriteFile(filepath.Join(dir, "d0", "f00.txt"), []byte(fmt.Sprintf("%04096d", i)), 0o644); err != nil {
			b.Fatal(err)
		}
		if _, st, err := s.Take(dir); err != nil || st.Hashed != 1 {
			b.Fatal(st, err)
		}
	}
}
