//go:build linux

package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// TestFileToolsSwapRace swaps a path between a regular file inside the root and
// something a file tool must not use — a symlink or a hard link to the outside secret,
// a FIFO — while read_file and write_file run on it, checking nothing between the
// tools' checks and their use lets the outside file be read or written, or blocks.
func TestFileToolsSwapRace(t *testing.T) {
	const iterations = 2000
	cases := []struct {
		name string
		make func(f *fixture, p string) error
	}{
		{"symlink to outside", func(f *fixture, p string) error { return os.Symlink(filepath.Join(f.outside, "secret.txt"), p) }},
		{"hard link to outside", func(f *fixture, p string) error { return os.Link(filepath.Join(f.outside, "secret.txt"), p) }},
		{"fifo", func(_ *fixture, p string) error { return syscall.Mkfifo(p, 0o644) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			p := filepath.Join(f.root, "swap.txt")
			if err := os.WriteFile(p, []byte("inside"), 0o644); err != nil {
				t.Fatal(err)
			}
			probe := filepath.Join(f.root, "probe")
			if err := tc.make(f, probe); err != nil {
				t.Skip(err)
			}
			os.Remove(probe)
			// The swapper replaces the path by an atomic rename, so it always exists.
			stop := make(chan struct{})
			swapped := make(chan int)
			go func() {
				n, next := 0, filepath.Join(f.root, "swap.next")
				for {
					select {
					case <-stop:
						swapped <- n
						return
					default:
					}
					os.Remove(next)
					var err error
					if n%2 == 0 {
						err = tc.make(f, next)
					} else {
						err = os.WriteFile(next, []byte("inside"), 0o644)
					}
					if err == nil && os.Rename(next, p) == nil {
						n++
					}
				}
			}()
			var reads, readRefusals, writes, writeRefusals int
			loop := func() error {
				ctx := context.Background()
				for i := range iterations {
					res, err := f.sb.ReadFile(ctx, "swap.txt")
					if strings.Contains(res.Output, secret) || (err != nil && strings.Contains(err.Error(), secret)) {
						return fmt.Errorf("read %d returned the outside file: %q", i, res.Output)
					}
					if err == nil {
						reads++
						if res.Output != "inside" && !strings.HasPrefix(res.Output, "write ") {
							return fmt.Errorf("read %d = %q", i, res.Output)
						}
					} else if res.Refused {
						readRefusals++
					}
					res, err = f.sb.WriteFile(ctx, "swap.txt", fmt.Sprintf("write %d", i))
					if err == nil {
						writes++
					} else if res.Refused {
						writeRefusals++
					}
				}
				return nil
			}
			done := make(chan error, 1)
			go func() { done <- loop() }()
			select {
			case err := <-done:
				if err != nil {
					t.Error(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatal("the read/write loop blocked")
			}
			close(stop)
			n := <-swapped
			t.Logf("%d swaps; reads: %d ok, %d refused; writes: %d ok, %d refused", n, reads, readRefusals, writes, writeRefusals)
			if b, err := os.ReadFile(filepath.Join(f.outside, "secret.txt")); err != nil || string(b) != secret {
				t.Errorf("the outside file now holds %q (%v)", b, err)
			}
			if entries, _ := os.ReadDir(f.outside); len(entries) != 1 {
				t.Errorf("the outside directory holds %d entries", len(entries))
			}
			assertNoTemp(t, f.root)
		})
	}
}

// countdown is a context whose Err turns to Canceled after a number of calls, to stop
// a file tool between two chunks without depending on timing.
type countdown struct {
	context.Context
	left atomic.Int64
}

func newCountdown(n int64) *countdown {
	c := &countdown{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestFileToolsStopBetweenChunks(t *testing.T) {
	f := newFixture(t, Options{MaxRead: 1 << 20, MaxWrite: 8 << 20})
	big := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: sixteen chunks
	if err := os.WriteFile(filepath.Join(f.root, "big.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for d := range 50 {
		if err := os.MkdirAll(filepath.Join(f.root, "tree", fmt.Sprint(d), "leaf"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	nothing := func(*testing.T) {}
	cases := []struct {
		name      string
		call      func(ctx context.Context) (contract.ToolResponse, error)
		unchanged func(t *testing.T) // after the cancelled call
	}{
		{"read", func(ctx context.Context) (contract.ToolResponse, error) { return f.sb.ReadFile(ctx, "big.txt") }, nothing},
		{"write", func(ctx context.Context) (contract.ToolResponse, error) { return f.sb.WriteFile(ctx, "a.txt", big) }, func(t *testing.T) {
			if got := f.read(t, "a.txt"); got != "alpha\n" {
				t.Errorf("a.txt holds %d bytes after a cancelled write", len(got))
			}
			assertNoTemp(t, f.root)
		}},
		{"list", func(ctx context.Context) (contract.ToolResponse, error) { return f.sb.ListFiles(ctx, "tree", "", true) }, nothing},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.call(newCountdown(3)) // the call's first look, then two chunks or directories
			if !errors.Is(err, context.Canceled) || res.Output != "" {
				t.Errorf("= %q, %v; want nothing and context.Canceled", res.Output, err)
			}
			tc.unchanged(t)
			// Given enough room, the same call completes: the countdown stopped it midway.
			if _, err := tc.call(newCountdown(1000)); err != nil {
				t.Errorf("uncancelled: %v", err)
			}
		})
	}
	if got := f.read(t, "a.txt"); got != big {
		t.Errorf("a.txt holds %d bytes after the complete write", len(got))
	}
	assertNoTemp(t, f.root)
}
