//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"
)

// Staging lets a sandbox whose host uid is not root show a directory that uid cannot
// reach: bwrap resolves every bind source as a path, with the sandbox's credentials, so
// a work dir under a parent that only root may search (/root, a test's 0700 temporary
// directory) would be out of its reach.
//
// The spine starts bwrap from a thread of its own that has left the process's mount
// namespace (unshare of CLONE_NEWNS with CLONE_FS, which a thread may do alone). On that
// thread it mounts a small tmpfs at stageBase, binds each source there at a numbered
// path anyone may traverse, and starts bwrap, which is forked from that thread and so
// inherits its mounts; bwrap drops to the host uid on the way (exec.Cmd's Credential).
// The thread is never handed back to the Go scheduler: it lives as long as the call (bwrap
// dies with the thread that forked it) and then ends with its goroutine, and the namespace
// with the last process in it. Nothing is ever mounted in the host's
// namespace, so concurrent calls, other spines and a crash leave nothing behind, and no
// extra program runs per call.

// stageBase is where the staging tmpfs goes. The directory exists on the host (empty,
// made once); the tmpfs over it exists only in the staging thread's namespace.
var stageBase = func() string {
	if fi, err := os.Stat("/run"); err == nil && fi.IsDir() {
		return "/run/spine-sandbox"
	}
	return filepath.Join(os.TempDir(), "spine-sandbox")
}()

// stageSource is one directory or file to bind at stagedPath(index).
type stageSource struct {
	path string
	ro   bool
}

// stagedPath is where the i-th source of a call appears for bwrap.
func stagedPath(i int) string { return filepath.Join(stageBase, strconv.Itoa(i)) }

// startStaged binds sources on a staging thread and starts cmd from it. The thread lives
// until end is called, after cmd has been waited for: bwrap's --die-with-parent watches
// the thread that forked it, not the process, and Go ends threads (a locked goroutine's,
// such as the file tools' Landlock threads, ends with it). So every bwrap is started from
// a thread of its own, with nil sources when nothing needs staging.
func startStaged(cmd *exec.Cmd, sources []stageSource) (end func(), err error) {
	errc, done := make(chan error, 1), make(chan struct{})
	go stagingThread(cmd, sources, errc, done)
	if err := <-errc; err != nil {
		return nil, err
	}
	return func() { close(done) }, nil
}

// stagingThread does startStaged's work locked to a thread that is not the main one.
func stagingThread(cmd *exec.Cmd, sources []stageSource, errc chan<- error, done <-chan struct{}) {
	// Never unlocked: the thread's mount namespace is not the process's, so the thread
	// must die with this goroutine rather than run other goroutines.
	runtime.LockOSThread()
	if unix.Gettid() == unix.Getpid() {
		// The main thread is what /proc/self shows of the process, and Go never ends it:
		// it must stay in the process's namespace. While this goroutine holds it, the one
		// started here runs on another thread.
		finished := make(chan struct{})
		go func() {
			stagingThread(cmd, sources, errc, done)
			close(finished)
		}()
		<-finished
		runtime.UnlockOSThread()
		return
	}
	err := stageAndStart(cmd, sources)
	errc <- err
	if err == nil {
		<-done
	}
}

func stageAndStart(cmd *exec.Cmd, sources []stageSource) error {
	if sources == nil {
		return cmd.Start() // nothing to stage: the thread only outlives bwrap
	}
	if err := unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_FS); err != nil {
		return fmt.Errorf("staging: a mount namespace for the call: %w", err)
	}
	// Nothing done here may propagate back to the host's mounts.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("staging: private mounts: %w", err)
	}
	if err := unix.Mount("spine-stage", stageBase, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0711,size=64k"); err != nil {
		return fmt.Errorf("staging: tmpfs at %s: %w", stageBase, err)
	}
	for i, s := range sources {
		if err := stageOne(s, stagedPath(i)); err != nil {
			return err
		}
	}
	return cmd.Start()
}

// stageOne binds src at dst, read-only (and nosuid, nodev) when asked.
func stageOne(s stageSource, dst string) error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		err = os.Mkdir(dst, 0o700)
	} else {
		err = os.WriteFile(dst, nil, 0o600)
	}
	if err != nil {
		return err
	}
	if err := unix.Mount(s.path, dst, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("staging %s: %w", s.path, err)
	}
	if s.ro {
		if err := unix.Mount("", dst, "", unix.MS_BIND|unix.MS_REMOUNT|unix.MS_RDONLY|unix.MS_NOSUID|unix.MS_NODEV, ""); err != nil {
			return fmt.Errorf("staging %s read-only: %w", s.path, err)
		}
	}
	return nil
}

// ensureStageBase makes the (empty) host directory the staging tmpfs goes over.
func ensureStageBase() error {
	if err := os.MkdirAll(stageBase, 0o711); err != nil {
		return err
	}
	return os.Chmod(stageBase, 0o711)
}
