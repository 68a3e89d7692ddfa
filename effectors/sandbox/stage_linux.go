//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Staging lets a sandbox whose host uid is not root show a directory that uid cannot
// reach: bwrap resolves every bind source as a path, with the sandbox's credentials, so
// a work dir under a parent that only root may search (/root, a test's 0700 temporary
// directory) would be out of its reach.
//
// The stager is this executable again, started as root in a mount namespace of its own
// (so nothing it mounts is seen by the host or by another call, and nothing needs
// cleaning up after a crash). It mounts a small tmpfs at stageBase, binds each source
// there at a numbered path anyone may traverse, drops to the host uid and executes
// bwrap, which copies those binds into the sandbox. The process keeps its pid through
// the exec, so the spine sees bwrap as the process it started.
const stageArg = "spine-sandbox-stage"

// stageBase is where the stager's tmpfs goes. The directory exists on the host (empty,
// made once); the tmpfs over it exists only in the stager's namespace.
var stageBase = func() string {
	if fi, err := os.Stat("/run"); err == nil && fi.IsDir() {
		return "/run/spine-sandbox"
	}
	return filepath.Join(os.TempDir(), "spine-sandbox")
}()

func init() {
	if len(os.Args) > 1 && os.Args[1] == stageArg {
		err := runStager(os.Args[2:])
		fmt.Fprintf(os.Stderr, "spine-sandbox-stage: %v\n", err)
		os.Exit(126)
	}
}

// stageSource is one directory or file to bind at stageBase/<index>.
type stageSource struct {
	path string
	ro   bool
}

// stagePlan is what one call stages and how it then runs bwrap.
type stagePlan struct {
	uid, gid int
	sources  []stageSource
	argv     []string // bwrap and its arguments
}

// stagedPath is where the plan's i-th source appears for bwrap.
func stagedPath(i int) string { return filepath.Join(stageBase, strconv.Itoa(i)) }

// stagerArgv encodes a plan as the stager's command line: uid, gid, then "rw" or "ro"
// and a path per source, "--", bwrap's argv.
func (p stagePlan) stagerArgv(exe string) []string {
	a := []string{exe, stageArg, strconv.Itoa(p.uid), strconv.Itoa(p.gid)}
	for _, s := range p.sources {
		mode := "rw"
		if s.ro {
			mode = "ro"
		}
		a = append(a, mode, s.path)
	}
	a = append(a, "--")
	return append(a, p.argv...)
}

func parseStagePlan(args []string) (stagePlan, error) {
	var p stagePlan
	if len(args) < 2 {
		return p, fmt.Errorf("expected UID GID")
	}
	var err error
	if p.uid, err = strconv.Atoi(args[0]); err != nil || p.uid <= 0 {
		return p, fmt.Errorf("uid %q: expected a positive number", args[0])
	}
	if p.gid, err = strconv.Atoi(args[1]); err != nil || p.gid <= 0 {
		return p, fmt.Errorf("gid %q: expected a positive number", args[1])
	}
	rest := args[2:]
	for len(rest) > 0 && rest[0] != "--" {
		if len(rest) < 2 || (rest[0] != "ro" && rest[0] != "rw") {
			return p, fmt.Errorf("source %q: expected ro|rw PATH", rest[0])
		}
		p.sources = append(p.sources, stageSource{path: rest[1], ro: rest[0] == "ro"})
		rest = rest[2:]
	}
	if len(rest) < 2 {
		return p, fmt.Errorf("expected -- and bwrap's command line")
	}
	p.argv = rest[1:]
	return p, nil
}

// runStager does the stager's work and executes bwrap; it returns only on failure. It
// runs in the mount namespace its parent unshared for it, whose mounts are private.
func runStager(args []string) error {
	p, err := parseStagePlan(args)
	if err != nil {
		return err
	}
	if err := unix.Mount("spine-stage", stageBase, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, "mode=0711,size=64k"); err != nil {
		return fmt.Errorf("tmpfs at %s: %w", stageBase, err)
	}
	for i, s := range p.sources {
		if err := stageOne(s, stagedPath(i)); err != nil {
			return err
		}
	}
	if err := syscall.Setgroups([]int{}); err != nil {
		return fmt.Errorf("setgroups: %w", err)
	}
	if err := syscall.Setresgid(p.gid, p.gid, p.gid); err != nil {
		return fmt.Errorf("setresgid %d: %w", p.gid, err)
	}
	if err := syscall.Setresuid(p.uid, p.uid, p.uid); err != nil {
		return fmt.Errorf("setresuid %d: %w", p.uid, err)
	}
	return syscall.Exec(p.argv[0], p.argv, os.Environ())
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

// ensureStageBase makes the (empty) host directory the stager mounts over.
func ensureStageBase() error {
	if err := os.MkdirAll(stageBase, 0o711); err != nil {
		return err
	}
	return os.Chmod(stageBase, 0o711)
}
