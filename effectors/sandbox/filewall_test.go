//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/agentspine/spine/contract"
)

// requireLandlock skips where the kernel has no Landlock: the file tools then run as
// before, which TestFileWallMissingIsSaid covers.
func requireLandlock(t testing.TB) int {
	t.Helper()
	abi, err := landlockABI()
	if err != nil {
		t.Skipf("no Landlock: %v", err)
	}
	return abi
}

// wallFixture is a sandbox with a file inside and a secret outside its work dir.
func wallFixture(t *testing.T) (sb *Sandbox, outside string) {
	t.Helper()
	requireLandlock(t)
	work, out := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "in.txt"), []byte("inside"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside = filepath.Join(out, "secret")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := New(work, Options{Jail: Unconfined{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb, outside
}

// TestFileWallRefusesWhatChecksMissed runs, on the file tools' thread, the I/O a file
// tool would do had its path checks let an outside path through: Landlock refuses it
// with EACCES, while the work dir stays readable and writable.
func TestFileWallRefusesWhatChecksMissed(t *testing.T) {
	sb, outside := wallFixture(t)
	var readErr, writeErr, createErr, inErr error
	var inside []byte
	_, err := sb.onWall(func() (contract.ToolResponse, error) {
		_, readErr = os.ReadFile(outside)
		writeErr = os.WriteFile(outside, []byte("x"), 0o644)
		createErr = os.WriteFile(filepath.Join(filepath.Dir(outside), "planted"), []byte("x"), 0o644)
		inside, inErr = os.ReadFile(filepath.Join(sb.Root(), "in.txt"))
		if inErr == nil {
			inErr = os.WriteFile(filepath.Join(sb.Root(), "new.txt"), []byte("y"), 0o644)
		}
		return contract.ToolResponse{}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for what, e := range map[string]error{"reading": readErr, "writing": writeErr, "creating": createErr} {
		if !errors.Is(e, syscall.EACCES) {
			t.Errorf("%s outside the work dir on the file tools' thread: %v, want EACCES", what, e)
		}
	}
	if inErr != nil || string(inside) != "inside" {
		t.Errorf("the work dir on the file tools' thread: %q, %v", inside, inErr)
	}
}

// TestFileWallStopsABypassedTool calls read_file's and write_file's inner functions
// with their root swapped for an outside directory, as a path-check bug would: the file
// tool itself meets Landlock.
func TestFileWallStopsABypassedTool(t *testing.T) {
	sb, outside := wallFixture(t)
	ctx := context.Background()
	if _, err := sb.ReadFile(ctx, "in.txt"); err != nil {
		t.Fatal(err) // the wall exists and the work dir is reachable
	}
	wrong, err := os.OpenRoot(filepath.Dir(outside))
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	good := sb.osRoot
	sb.osRoot = wrong
	defer func() { sb.osRoot = good }()
	// The control: off the wall, the bypass works.
	if res, err := sb.readFile(ctx, "secret"); err != nil || res.Output != "outside" {
		t.Fatalf("the bypass off the wall read %q, %v; the test shows nothing", res.Output, err)
	}
	for name, call := range map[string]func() (contract.ToolResponse, error){
		"read_file":  func() (contract.ToolResponse, error) { return sb.readFile(ctx, "secret") },
		"write_file": func() (contract.ToolResponse, error) { return sb.writeFile(ctx, "secret", "x") },
	} {
		res, err := sb.onWall(call)
		if err == nil || !strings.Contains(res.Output, "permission denied") || strings.Contains(res.Output, "outside") {
			t.Errorf("%s through a wrong root: %q, %v; want EACCES", name, res.Output, err)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "outside" {
		t.Errorf("the outside file now holds %q", data)
	}
}

// TestFileWallConfinesOnlyItsThreads: after file-tool calls, every other goroutine —
// on whatever thread it runs, including threads started meanwhile — still opens files
// outside the work dir. The restriction is per thread (no TSYNC) and its threads run
// nothing else.
func TestFileWallConfinesOnlyItsThreads(t *testing.T) {
	sb, outside := wallFixture(t)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 16 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if res, err := sb.ReadFile(ctx, "in.txt"); err != nil || res.Output != "inside" {
				errs <- errors.New("read_file: " + res.Output)
			}
		}()
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				// A goroutine that takes a thread of its own: a new one, cloned while
				// the wall's threads exist.
				runtimeLockedRead(outside, errs)
				return
			}
			if _, err := os.ReadFile(outside); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if _, err := os.ReadFile(outside); err != nil {
		t.Errorf("the test's own goroutine: %v", err)
	}
	if err := os.WriteFile(outside, []byte("still writable"), 0o644); err != nil {
		t.Errorf("the test's own goroutine: %v", err)
	}
}

func TestFileWallInIsolation(t *testing.T) {
	sb, _ := wallFixture(t)
	iso, err := sb.Isolation()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(iso.Isolated, "\n"), "the file tools' threads reach only the work dir") {
		t.Errorf("Isolation().Isolated = %q", iso.Isolated)
	}
}

func TestFileWallMissingIsSaid(t *testing.T) {
	sb, err := New(t.TempDir(), Options{Jail: Unconfined{}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	sb.wallOnce.Do(func() { sb.wallNote = "the kernel has no Landlock (before 5.13)" })
	if res, err := sb.WriteFile(context.Background(), "a.txt", "x"); err != nil {
		t.Fatalf("write_file without the wall: %q, %v", res.Output, err)
	}
	iso, err := sb.Isolation()
	if err != nil {
		t.Fatal(err)
	}
	if want := "Landlock for the file tools (the kernel has no Landlock (before 5.13))"; !strings.Contains(strings.Join(iso.Missing, "\n"), want) {
		t.Errorf("Isolation().Missing = %q, want %q", iso.Missing, want)
	}
}

func TestFileWallClosed(t *testing.T) {
	sb, _ := wallFixture(t)
	if _, err := sb.ReadFile(context.Background(), "in.txt"); err != nil {
		t.Fatal(err)
	}
	sb.Close()
	if _, err := sb.ReadFile(context.Background(), "in.txt"); !errors.Is(err, errWallClosed) {
		t.Errorf("read_file after Close: %v, want %v", err, errWallClosed)
	}
}

// BenchmarkReadFile is one read_file call of a small file, on the wall where the kernel
// has Landlock and directly otherwise: the wall's price is the hand-over to its thread.
func BenchmarkReadFile(b *testing.B) {
	for _, walled := range []bool{true, false} {
		name := "landlock"
		if !walled {
			name = "direct"
		}
		b.Run(name, func(b *testing.B) {
			if walled {
				requireLandlock(b)
			}
			dir := b.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte(strings.Repeat("x", 4096)), 0o644); err != nil {
				b.Fatal(err)
			}
			sb, err := New(dir, Options{Jail: Unconfined{}})
			if err != nil {
				b.Fatal(err)
			}
			defer sb.Close()
			if !walled {
				sb.wallOnce.Do(func() {})
			}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sb.ReadFile(ctx, "f.txt"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// runtimeLockedRead reads path on a goroutine locked to its thread, which the runtime may
// have to start for it.
func runtimeLockedRead(path string, errs chan<- error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if _, err := os.ReadFile(path); err != nil {
			errs <- err
		}
	}()
	<-done
}
