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
