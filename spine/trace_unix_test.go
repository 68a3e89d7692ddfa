//go:build unix

package spine

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestTraceFileLocked: the run's writer holds the trace; a second writer is refused
// with the file named, a reader sees it is being written, and Close releases it.
func TestTraceFileLocked(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.jsonl")
	sink, err := CreateFileSink(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := CreateFileSink(path); !errors.Is(err, ErrTraceExists) {
		t.Fatalf("second create: %v", err)
	}
	other, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	err = lockTrace(other, path)
	if !errors.Is(err, ErrTraceLocked) || err.Error() != path+": trace file is locked by another writer" {
		t.Fatalf("second writer: %v", err)
	}
	if locked, err := TraceLocked(path); err != nil || !locked {
		t.Fatalf("TraceLocked while writing: %v %v", locked, err)
	}
	if err := sink.Write(&Event{Seq: 1, Kind: EvHeader, Body: map[string]string{"format": TraceFormat}}); err != nil {
		t.Fatal(err)
	}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	if locked, err := TraceLocked(path); err != nil || locked {
		t.Fatalf("TraceLocked after Close: %v %v", locked, err)
	}
	if err := lockTrace(other, path); err != nil {
		t.Fatalf("the lock outlived Close: %v", err)
	}
	b, _ := os.ReadFile(path)
	if rep, err := VerifyChain(bytes.NewReader(b)); err != nil || rep.Head != sink.Head() {
		t.Fatalf("written file: %+v %v (head %s)", rep, err, sink.Head())
	}
}
