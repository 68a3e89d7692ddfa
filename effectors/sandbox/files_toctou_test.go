//go:build linux

package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/agentspine/spine/contract"
)

// swap replaces the entry at p by what make creates, in one rename, as an attacker
// racing the tool would.
func swap(t *testing.T, p string, mk func(next string) error) {
	t.Helper()
	next := p + ".next"
	if err := mk(next); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, p); err != nil {
		// A directory cannot be renamed over a file: remove the file first.
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(next, p); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFileToolsSwapAtTheWorstMoment swaps the path between a tool's checks and its use
// (and, for read_file, again between its open and the check of the opened file),
// through the test hooks, so each interleaving the random race might miss is run.
func TestFileToolsSwapAtTheWorstMoment(t *testing.T) {
	secretPath := func(f *fixture) string { return filepath.Join(f.outside, "secret.txt") }
	symlinkOut := func(f *fixture) func(string) error {
		return func(n string) error { return os.Symlink(secretPath(f), n) }
	}
	symlinkIn := func(*fixture) func(string) error { return func(n string) error { return os.Symlink("a.txt", n) } }
	hardlinkOut := func(f *fixture) func(string) error {
		return func(n string) error { return os.Link(secretPath(f), n) }
	}
	regular := func(*fixture) func(string) error {
		return func(n string) error { return os.WriteFile(n, []byte("inside"), 0o644) }
	}
	fifo := func(*fixture) func(string) error { return func(n string) error { return syscall.Mkfifo(n, 0o644) } }
	// secondLink names the file once more, then puts it back at the path: the same file,
	// now with two links.
	secondLink := func(f *fixture) func(string) error {
		return func(n string) error { return os.Link(filepath.Join(f.root, "x"), n) }
	}
	dir := func(*fixture) func(string) error { return func(n string) error { return os.Mkdir(n, 0o755) } }
	devNull := func(*fixture) func(string) error {
		return func(n string) error { return syscall.Mknod(n, syscall.S_IFCHR|0o600, 1<<8|3) }
	}
	const changed = "refused: the path was replaced while it was being opened; try again"
	cases := []struct {
		name           string
		tool           string
		looked, opened func(*fixture) func(string) error // what the path becomes at each hook
		read           func(*fixture) func(string) error // and after read_file's read
		root           bool                              // needs root (mknod of a device)
		kind           error                             // nil: no refusal
		want           string                            // the result's output
		wantX          string                            // x's content afterwards; "" for no check
	}{
		{"read, symlink out after the look", ToolReadFile, symlinkOut, nil, nil, false, ErrOutsideRoot,
			"refused: the path leads through a symlink to a place outside the sandbox root", ""},
		{"read, symlink in after the look", ToolReadFile, symlinkIn, nil, nil, false, ErrChanged, changed, ""},
		{"read, hard link out after the look", ToolReadFile, hardlinkOut, nil, nil, false, ErrChanged, changed, ""},
		{"read, hard link out after the look, unlinked after the open", ToolReadFile, hardlinkOut, regular, nil, false, ErrChanged, changed, ""},
		{"read, fifo after the look", ToolReadFile, fifo, nil, nil, false, ErrChanged, changed, ""},
		{"read, device after the look", ToolReadFile, devNull, nil, nil, true, ErrChanged, changed, ""},
		{"read, another file at the path after the read", ToolReadFile, nil, nil, regular, false, ErrChanged, changed, ""},
		{"read, a second link to the file after the read", ToolReadFile, nil, nil, secondLink, false, ErrChanged, changed, ""},
		{"write, hard link out before the rename", ToolWriteFile, hardlinkOut, nil, nil, false, nil, "wrote 5 bytes to x", "pwned"},
		{"write, symlink out before the rename", ToolWriteFile, symlinkOut, nil, nil, false, nil, "wrote 5 bytes to x", "pwned"},
		{"write, fifo before the rename", ToolWriteFile, fifo, nil, nil, false, nil, "wrote 5 bytes to x", "pwned"},
		{"write, device before the rename", ToolWriteFile, devNull, nil, nil, true, nil, "wrote 5 bytes to x", "pwned"},
		{"write, directory before the rename", ToolWriteFile, dir, nil, nil, false, nil, "error: renameat x: file exists", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("making a device node needs root")
			}
			f := newFixture(t, Options{})
			p := filepath.Join(f.root, "x")
			if err := os.WriteFile(p, []byte("inside"), 0o644); err != nil {
				t.Fatal(err)
			}
			at := func(mk func(*fixture) func(string) error) func(string) {
				if mk == nil {
					return nil
				}
				return func(rel string) {
					if rel != "x" {
						t.Errorf("hook for %q", rel)
					}
					swap(t, p, mk(f))
				}
			}
			testHookLooked, testHookOpened, testHookRead = at(tc.looked), at(tc.opened), at(tc.read)
			defer func() { testHookLooked, testHookOpened, testHookRead = nil, nil, nil }()
			got := promptly(t, tc.tool, func() toolOutcome {
				var res contract.ToolResponse
				var err error
				if tc.tool == ToolReadFile {
					res, err = f.sb.ReadFile(context.Background(), "x")
				} else {
					res, err = f.sb.WriteFile(context.Background(), "x", "pwned")
				}
				return toolOutcome{res, err}
			})
			if tc.kind != nil && !errors.Is(got.err, tc.kind) {
				t.Errorf("err = %v, want a refusal of kind %v", got.err, tc.kind)
			}
			if tc.kind == nil && got.res.Refused {
				t.Errorf("refused: %v", got.err)
			}
			if got.res.Output != tc.want {
				t.Errorf("output = %q\nwant     %q", got.res.Output, tc.want)
			}
			if tc.wantX != "" {
				fi, err := os.Lstat(p)
				if err != nil || !fi.Mode().IsRegular() || linkCount(fi) != 1 || f.read(t, "x") != tc.wantX {
					t.Errorf("x is not a regular file of one link holding %q: %v, %v", tc.wantX, fi, err)
				}
			}
			if b, err := os.ReadFile(secretPath(f)); err != nil || string(b) != secret {
				t.Errorf("the outside file now holds %q (%v)", b, err)
			}
			assertNoTemp(t, f.root)
		})
	}
}
