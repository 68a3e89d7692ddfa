//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Staging lets a sandbox whose host uid is not root show a directory that uid cannot
// reach: bwrap resolves every bind source as a path, with the sandbox's credentials, so
// a work dir under a parent that only root may search (/root, a test's 0700 temporary
// directory) would be out of its reach. The spine, still root, binds the directory at a
// path anyone may traverse, bwrap copies the mount table when it creates the sandbox,
// and the spine removes the bind again as soon as bwrap reports its child. The stage is
// a private mount, so neither the bind nor its removal propagates anywhere else.

var (
	stageOnce sync.Once
	stageDir  string
	stageErr  error
	stageSeq  atomic.Int64
)

// stageRoot makes (once per process) the private mount under which binds are staged.
func stageRoot() (string, error) {
	stageOnce.Do(func() {
		base := "/run"
		if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
			base = os.TempDir()
		}
		dir := filepath.Join(base, "spine-sandbox")
		if err := os.MkdirAll(dir, 0o711); err != nil {
			stageErr = err
			return
		}
		if err := os.Chmod(dir, 0o711); err != nil {
			stageErr = err
			return
		}
		if !isMountPoint(dir) {
			if err := unix.Mount(dir, dir, "", unix.MS_BIND, ""); err != nil {
				stageErr = fmt.Errorf("staging %s: %w", dir, err)
				return
			}
		}
		if err := unix.Mount("", dir, "", unix.MS_PRIVATE, ""); err != nil {
			stageErr = fmt.Errorf("staging %s private: %w", dir, err)
			return
		}
		sweepStages(dir)
		stageDir = dir
	})
	return stageDir, stageErr
}

// isMountPoint tells whether dir is the mount point of a mount of this namespace.
func isMountPoint(dir string) bool {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	for _, m := range parseMountinfo(data) {
		if m.point == dir {
			return true
		}
	}
	return false
}

// sweepStages removes what a spine that died mid-call left staged.
func sweepStages(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		pid, _, ok := strings.Cut(e.Name(), "-")
		if n, err := strconv.Atoi(pid); ok && err == nil && !pidExists(n) {
			p := filepath.Join(dir, e.Name())
			_ = unix.Unmount(p, unix.MNT_DETACH)
			_ = os.Remove(p)
		}
	}
}

// staged is one staged bind.
type staged struct{ path string }

// stage binds src (recursively; read-only when ro) at a fresh path under the stage.
func stage(src string, ro bool) (*staged, error) {
	root, err := stageRoot()
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return nil, err
	}
	p := filepath.Join(root, fmt.Sprintf("%d-%d", os.Getpid(), stageSeq.Add(1)))
	if fi.IsDir() {
		err = os.Mkdir(p, 0o700)
	} else {
		err = os.WriteFile(p, nil, 0o600)
	}
	if err != nil {
		return nil, err
	}
	s := &staged{path: p}
	if err := unix.Mount(src, p, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		_ = os.Remove(p)
		return nil, fmt.Errorf("staging %s: %w", src, err)
	}
	flags := uintptr(unix.MS_PRIVATE | unix.MS_REC)
	err = unix.Mount("", p, "", flags, "")
	if err == nil && ro {
		err = unix.Mount("", p, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, "")
	}
	if err != nil {
		s.release()
		return nil, fmt.Errorf("staging %s: %w", src, err)
	}
	return s, nil
}

// release removes the staged bind; a sandbox that copied it keeps its copy.
func (s *staged) release() {
	if s == nil || s.path == "" {
		return
	}
	if err := unix.Unmount(s.path, unix.MNT_DETACH); err != nil && !errors.Is(err, unix.EINVAL) {
		return // still mounted: leave the directory for the next sweep
	}
	_ = os.Remove(s.path)
	s.path = ""
}
