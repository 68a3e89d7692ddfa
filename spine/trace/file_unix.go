//go:build unix

package trace

import (
	"errors"
	"fmt"
	"os"
	"syscall"

	"github.com/agentspine/spine/internal/fsmode"
)

// lockFile takes the exclusive lock a run holds on its trace while it writes. It does
// not wait: a trace another writer holds is an error naming the file.
func lockFile(f *os.File, path string) error {
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return fmt.Errorf("%s: %w", path, ErrLocked)
		}
		return fmt.Errorf("%s: locking the trace: %w", path, err)
	}
	return nil
}

// Locked reports whether a run's writer holds the trace at path (it is still being
// written). It opens the file read-only and non-blocking and takes no lock it keeps.
func Locked(path string) (bool, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = flock(f, syscall.LOCK_SH|syscall.LOCK_NB)
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return true, nil
	}
	return false, fmt.Errorf("%s: %w", path, err)
}

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) {
		for {
			ferr = syscall.Flock(int(fd), how)
			if ferr != syscall.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}

// OpenRegular opens a file of outside input (a trace, a memory import) for reading. It
// opens only a regular file (a symlink is followed and its target checked), without
// blocking, so a FIFO, a device such as /dev/zero or a directory is an error naming
// what it is, at once. The non-blocking open keeps a FIFO put there after the check
// from hanging the caller, and the check is made again on the open file.
func OpenRegular(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %s, not a regular file", path, fsmode.Name(fi.Mode()))
	}
	return f, nil
}
