//go:build unix

package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestFileSinkLocked: the run's writer holds the trace; a second writer is refused with
// the file named, a reader sees it is being written, and Close releases it.
func TestFileSinkLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	sink, err := CreateFileSink(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFileSink(path); !errors.Is(err, ErrExists) {
		t.Fatalf("second create: %v", err)
	}
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	err = lockFile(other, path)
	if !errors.Is(err, ErrLocked) || err.Error() != path+": trace file is locked by another writer" {
		t.Fatalf("second writer: %v", err)
	}
	if locked, err := Locked(path); err != nil || !locked {
		t.Fatalf("Locked while writing: %v %v", locked, err)
	}
	if err := sink.Write(&Event{Seq: 1, Kind: KindHeader, Body: Header{Format: Format}}); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if locked, err := Locked(path); err != nil || locked {
		t.Fatalf("Locked after Close: %v %v", locked, err)
	}
	if err := lockFile(other, path); err != nil {
		t.Fatalf("the lock outlived Close: %v", err)
	}
	b, _ := os.ReadFile(path)
	if rep, err := VerifyChain(bytes.NewReader(b)); err != nil || rep.Head != sink.Head() {
		t.Fatalf("written file: %+v %v (head %s)", rep, err, sink.Head())
	}
}

// ReadFile opens only regular files, and says what else it was given.
func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	tests := []struct{ path, want string }{
		{fifo, fifo + ": a named pipe (FIFO), not a regular file"},
		{"/dev/zero", "/dev/zero: a character device, not a regular file"},
		{dir, dir + ": a directory, not a regular file"},
	}
	for _, tc := range tests {
		if _, err := ReadFile(tc.path); errString(err) != tc.want {
			t.Errorf("ReadFile(%s): %v, want %s", tc.path, err, tc.want)
		}
		if _, err := ReadFileEvents(tc.path); errString(err) != tc.want {
			t.Errorf("ReadFileEvents(%s): %v, want %s", tc.path, err, tc.want)
		}
		if _, err := ReadBytes(tc.path); errString(err) != tc.want {
			t.Errorf("ReadBytes(%s): %v, want %s", tc.path, err, tc.want)
		}
	}
	if _, err := ReadFile(filepath.Join(dir, "none")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
