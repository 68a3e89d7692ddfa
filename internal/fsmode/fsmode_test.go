package fsmode

import (
	"io/fs"
	"testing"
)

func TestName(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		0: "a regular file", fs.ModeDir: "a directory", fs.ModeSymlink: "a symlink", fs.ModeNamedPipe: "a named pipe (FIFO)",
		fs.ModeSocket: "a socket", fs.ModeDevice | fs.ModeCharDevice: "a character device", fs.ModeDevice: "a block device",
		fs.ModeIrregular: "a special file",
	} {
		if got := Name(m | 0o644); got != want {
			t.Errorf("Name(%v) = %q, want %q", m, got, want)
		}
	}
}
