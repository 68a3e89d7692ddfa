//go:build linux

package sandbox

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// prompt is how long a file tool may take on a special file before the test calls it a
// hang; the calls under test return in microseconds.
const prompt = 5 * time.Second

// promptly runs call and fails the test if it does not return in time.
func promptly[T any](t *testing.T, what string, call func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- call() }()
	select {
	case v := <-done:
		return v
	case <-time.After(prompt):
		t.Fatalf("%s did not return within %s", what, prompt)
	}
	panic("unreachable")
}

type toolOutcome struct {
	res contract.ToolResponse
	err error
}

// special makes the entry "x" in the fixture's root; it reports why the test must skip.
type special func(t *testing.T, f *fixture, p string) (skip string)

func mkfifo(t *testing.T, _ *fixture, p string) string {
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	return ""
}

func mksock(t *testing.T, _ *fixture, p string) string {
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return ""
}

// mkdev makes a device node with the numbers of /dev/null (char 1:3) or of /dev/loop0
// (block 7:0); the tools must refuse both before opening them.
func mkdev(kind uint32, major, minor int) special {
	return func(t *testing.T, _ *fixture, p string) string {
		if os.Geteuid() != 0 {
			return "making a device node needs root"
		}
		if err := syscall.Mknod(p, kind|0o600, major<<8|minor); err != nil {
			return "mknod: " + err.Error()
		}
		return ""
	}
}

func mkhardlink(t *testing.T, f *fixture, p string) string {
	if err := os.Link(filepath.Join(f.outside, "secret.txt"), p); err != nil {
		return "hard link: " + err.Error()
	}
	return ""
}

func mkdir(t *testing.T, _ *fixture, p string) string {
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return ""
}

func TestFileToolsRefuseSpecialFiles(t *testing.T) {
	const (
		fifoWhy   = "the path is a named pipe (FIFO), not a regular file; "
		sockWhy   = "the path is a socket, not a regular file; "
		charWhy   = "the path is a character device, not a regular file; "
		blockWhy  = "the path is a block device, not a regular file; "
		readOnly  = "read_file reads only regular files"
		writeOnly = "write_file replaces only regular files"
		linkWhy   = "the file has 2 hard links; another link may be a path outside the sandbox root, so "
	)
	cases := []struct {
		name string
		make special
		tool string
		kind error // nil: an *ArgsError
		want string
	}{
		{"read fifo", mkfifo, ToolReadFile, ErrNotRegular, "refused: " + fifoWhy + readOnly},
		{"write fifo", mkfifo, ToolWriteFile, ErrNotRegular, "refused: " + fifoWhy + writeOnly},
		{"read socket", mksock, ToolReadFile, ErrNotRegular, "refused: " + sockWhy + readOnly},
		{"write socket", mksock, ToolWriteFile, ErrNotRegular, "refused: " + sockWhy + writeOnly},
		{"read char device", mkdev(syscall.S_IFCHR, 1, 3), ToolReadFile, ErrNotRegular, "refused: " + charWhy + readOnly},
		{"write char device", mkdev(syscall.S_IFCHR, 1, 3), ToolWriteFile, ErrNotRegular, "refused: " + charWhy + writeOnly},
		{"read block device", mkdev(syscall.S_IFBLK, 7, 0), ToolReadFile, ErrNotRegular, "refused: " + blockWhy + readOnly},
		{"write block device", mkdev(syscall.S_IFBLK, 7, 0), ToolWriteFile, ErrNotRegular, "refused: " + blockWhy + writeOnly},
		{"read hard link out", mkhardlink, ToolReadFile, ErrHardlink, "refused: " + linkWhy + "read_file reads only files with one link"},
		{"write hard link out", mkhardlink, ToolWriteFile, ErrHardlink, "refused: " + linkWhy + "write_file replaces only files with one link"},
		{"read directory", mkdir, ToolReadFile, nil, `refused: read_file: argument "path": is a directory; use list_files`},
		{"write directory", mkdir, ToolWriteFile, nil, `refused: write_file: argument "path": is a directory`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{})
			p := filepath.Join(f.root, "x")
			if why := tc.make(t, f, p); why != "" {
				t.Skip(why)
			}
			before, err := os.Lstat(p)
			if err != nil {
				t.Fatal(err)
			}
			got := promptly(t, tc.tool, func() toolOutcome {
				args := `{"path":"x"}`
				if tc.tool == ToolWriteFile {
					args = `{"path":"x","content":"pwned"}`
				}
				res, err := f.sb.Call(context.Background(), tc.tool, []byte(args))
				return toolOutcome{res, err}
			})
			var ae *ArgsError
			switch {
			case tc.kind == nil && !errors.As(got.err, &ae):
				t.Errorf("err = %v, want an *ArgsError", got.err)
			case tc.kind != nil && !errors.Is(got.err, tc.kind):
				t.Errorf("err = %v, want a refusal of kind %v", got.err, tc.kind)
			}
			if got.res.Output != tc.want || !got.res.Refused {
				t.Errorf("output = %q (refused %v)\nwant     %q", got.res.Output, got.res.Refused, tc.want)
			}
			if strings.Contains(got.res.Output, secret) {
				t.Errorf("the secret leaked: %q", got.res.Output)
			}
			after, err := os.Lstat(p)
			if err != nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
				t.Errorf("x was replaced or changed: %v", err)
			}
			if b, _ := os.ReadFile(filepath.Join(f.outside, "secret.txt")); string(b) != secret {
				t.Errorf("the outside file now holds %q", b)
			}
			assertNoTemp(t, f.root)
		})
	}
}

// assertNoTemp fails if write_file left a temporary file in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".spine-write-") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

func TestFileToolsFIFOHonourContext(t *testing.T) {
	f := newFixture(t, Options{})
	if err := syscall.Mkfifo(filepath.Join(f.root, "sub", "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	short, cancelShort := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancelShort()
	cases := []struct {
		name string
		ctx  context.Context
		call func(ctx context.Context) (contract.ToolResponse, error)
		want string // the error's text
	}{
		{"read, cancelled", canceled, func(ctx context.Context) (contract.ToolResponse, error) { return f.sb.ReadFile(ctx, "sub/pipe") },
			"context canceled"},
		{"read, deadline", short, func(ctx context.Context) (contract.ToolResponse, error) { return f.sb.ReadFile(ctx, "sub/pipe") },
			`read_file "sub/pipe" refused: the path is a named pipe (FIFO), not a regular file; read_file reads only regular files`},
		{"write, deadline", short, func(ctx context.Context) (contract.ToolResponse, error) { return f.sb.WriteFile(ctx, "sub/pipe", "x") },
			`write_file "sub/pipe" refused: the path is a named pipe (FIFO), not a regular file; write_file replaces only regular files`},
		{"list the fifo", short, func(ctx context.Context) (contract.ToolResponse, error) {
			return f.sb.ListFiles(ctx, "sub/pipe", "", false)
		},
			`list_files "sub/pipe/*": sub/pipe is not a directory`},
		{"list a tree holding it", short, func(ctx context.Context) (contract.ToolResponse, error) {
			return f.sb.ListFiles(ctx, "sub", "p*", true)
		},
			""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := promptly(t, tc.name, func() toolOutcome {
				res, err := tc.call(tc.ctx)
				return toolOutcome{res, err}
			})
			switch {
			case tc.want == "" && got.err != nil:
				t.Errorf("err = %v", got.err)
			case tc.want != "" && (got.err == nil || got.err.Error() != tc.want):
				t.Errorf("err = %v\nwant  %s", got.err, tc.want)
			}
		})
	}
	res, err := f.sb.ListFiles(context.Background(), "sub", "p*", true)
	if err != nil || res.Output != "sub/pipe" {
		t.Errorf("list = %q, %v; want the pipe listed as a plain entry", res.Output, err)
	}
}

func TestWriteFileModes(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	umask := syscall.Umask(0)
	syscall.Umask(umask)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(f.root, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	must(os.Chmod(filepath.Join(f.root, "run.sh"), 0o750))
	must(os.WriteFile(filepath.Join(f.root, "ro.txt"), []byte("keep"), 0o444))
	cases := []struct {
		path, want string // want: the output
		mode       os.FileMode
	}{
		{"new.txt", "wrote 5 bytes to new.txt", 0o644 &^ os.FileMode(umask)},
		{"run.sh", "wrote 5 bytes to run.sh", 0o750},
		{"ro.txt", "error: open ro.txt: permission denied", 0o444},
	}
	for _, tc := range cases {
		res, _ := f.sb.WriteFile(ctx, tc.path, "hello")
		if res.Output != tc.want {
			t.Errorf("write %s = %q, want %q", tc.path, res.Output, tc.want)
		}
		if fi, err := os.Stat(filepath.Join(f.root, tc.path)); err != nil || fi.Mode().Perm() != tc.mode {
			t.Errorf("%s has mode %v (%v), want %v", tc.path, fi.Mode().Perm(), err, tc.mode)
		}
	}
	if got := f.read(t, "ro.txt"); got != "keep" {
		t.Errorf("ro.txt = %q", got)
	}
	assertNoTemp(t, f.root)
}
