//go:build unix

package sandbox

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
)

// Ownership hand-over. When the spine runs as root its commands run as an unprivileged
// host uid (see Bubblewrap), which could not write a work dir root owns. So for as long
// as the sandbox is open the work dir belongs to that uid: when the jail is first used,
// every directory, symlink and single-link file the spine's own uid owns there is
// chowned to it (files with other links are left alone: another link may be a path
// outside, and the file tools refuse them anyway), and what the file tools create is
// given to it too. Close gives everything the sandbox uid owns back to the spine's uid —
// chown clears setuid and setgid bits on the way, so nothing planted keeps them. Files
// the commands made with several links stay the sandbox uid's. Other owners' files are
// never touched.

// hostOwned is implemented by jails whose commands run as another host uid than the
// spine's; drop reports whether they do.
type hostOwned interface {
	hostOwner() (uid, gid int, drop bool)
}

// handover is an active hand-over: the work dir's files are owned by uid/gid.
type handover struct {
	uid, gid  int
	callerUID int
	callerGID int
}

// handOver gives the tree at root to h's uid.
func handOver(root string, h *handover) error {
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable parts stay as they are
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || int(st.Uid) != h.callerUID || (!d.IsDir() && d.Type()&fs.ModeSymlink == 0 && st.Nlink != 1) {
			return nil
		}
		return os.Lchown(p, h.uid, h.gid)
	})
}

// handBack gives what the sandbox uid owns under root back to the caller.
func handBack(root string, h *handover) error {
	var first error
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || int(st.Uid) != h.uid || (!d.IsDir() && d.Type()&fs.ModeSymlink == 0 && st.Nlink != 1) {
			return nil
		}
		if err := os.Lchown(p, h.callerUID, h.callerGID); err != nil && first == nil {
			first = err
		}
		return nil
	})
	return first
}

// giveAway hands what the file tools just made (rel and its parent directories up to
// the root) to the sandbox uid, when a hand-over is active.
func (s *Sandbox) giveAway(rel string, f *os.File) error {
	h := s.handed.Load()
	if h == nil {
		return nil
	}
	if f != nil {
		if err := f.Chown(h.uid, h.gid); err != nil {
			return err
		}
	}
	for dir := path.Dir(rel); dir != "." && dir != "/" && !strings.HasPrefix(dir, ".."); dir = path.Dir(dir) {
		fi, err := s.osRoot.Lstat(dir)
		if err != nil {
			return err
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.IsDir() && int(st.Uid) == h.callerUID {
			if err := s.osRoot.Lchown(dir, h.uid, h.gid); err != nil {
				return err
			}
		}
	}
	return nil
}
