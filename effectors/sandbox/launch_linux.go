//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// The launcher is the last step between bubblewrap and the command: the spine's own
// executable, run inside the sandbox (bwrap executes it from a descriptor, so no path of
// the host is shown for it) with launchArg as its first argument. It applies what bwrap
// cannot — the resource limits, Landlock — closes every descriptor but 0, 1 and 2, and
// executes /bin/sh. It runs from a package init, before the rest of the program starts,
// and under the seccomp filter bwrap has already loaded.
const launchArg = "spine-sandbox-launch"

func init() {
	if len(os.Args) > 1 && os.Args[1] == launchArg {
		runtime.LockOSThread() // Landlock and no_new_privs hold for this thread, which execs
		err := launch(os.Args[2:])
		fmt.Fprintf(os.Stderr, "spine-sandbox-launch: %v\n", err)
		os.Exit(126)
	}
}

// launchArgs is the launcher's command line after launchArg: the limits, whether to
// report, then the command.
type launchArgs struct {
	limits []launchLimit
	probe  bool
	argv   []string
}

type launchLimit struct {
	resource int
	value    uint64
}

// launcherArgv encodes the launcher's arguments: resource=value pairs, "probe" or "run",
// "--", the command.
func launcherArgv(exe string, limits []launchLimit, probe bool, argv ...string) []string {
	a := []string{exe, launchArg}
	for _, l := range limits {
		a = append(a, strconv.Itoa(l.resource)+"="+strconv.FormatUint(l.value, 10))
	}
	mode := "run"
	if probe {
		mode = "probe"
	}
	a = append(a, mode, "--")
	return append(a, argv...)
}

// launchLimits are the per-process limits the launcher applies before the shell starts:
// RLIMIT_NPROC (counted per host uid, which is the sandbox's own unprivileged one), the
// largest file, CPU time, open descriptors, no core dumps, and RLIMIT_AS when no cgroup
// bounds the call's memory.
func (l Limits) launchLimits(withAS bool) []launchLimit {
	out := []launchLimit{
		{unix.RLIMIT_NPROC, uint64(l.Processes)},
		{unix.RLIMIT_FSIZE, uint64(l.FileBytes)},
		{unix.RLIMIT_CPU, uint64(l.CPUSeconds)},
		{unix.RLIMIT_NOFILE, uint64(l.OpenFiles)},
		{unix.RLIMIT_CORE, 0},
	}
	if withAS {
		out = append(out, launchLimit{unix.RLIMIT_AS, uint64(l.MemoryBytes)})
	}
	return out
}

func parseLaunchArgs(args []string) (launchArgs, error) {
	var la launchArgs
	for i, a := range args {
		switch a {
		case "run", "probe":
			la.probe = a == "probe"
			if i+1 >= len(args) || args[i+1] != "--" || i+2 >= len(args) {
				return la, fmt.Errorf("expected -- and a command after %q", a)
			}
			la.argv = args[i+2:]
			return la, nil
		}
		var res int
		var v uint64
		if _, err := fmt.Sscanf(a, "%d=%d", &res, &v); err != nil {
			return la, fmt.Errorf("limit %q: expected RESOURCE=VALUE", a)
		}
		la.limits = append(la.limits, launchLimit{res, v})
	}
	return la, fmt.Errorf("expected run or probe")
}

// launch does the launcher's work and executes the command; it returns only on failure.
func launch(args []string) error {
	la, err := parseLaunchArgs(args)
	if err != nil {
		return err
	}
	for _, l := range la.limits {
		var cur unix.Rlimit
		if err := unix.Getrlimit(l.resource, &cur); err != nil {
			return fmt.Errorf("getrlimit %d: %w", l.resource, err)
		}
		v := min(l.value, cur.Max) // lowering needs no privilege; raising would fail
		if err := unix.Setrlimit(l.resource, &unix.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setrlimit %d=%d: %w", l.resource, v, err)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	status := "landlock: "
	if abi, err := landlockABI(); err != nil {
		status += "missing: " + err.Error()
	} else if dir, err := os.Getwd(); err != nil {
		return err
	} else if err := restrictThread(abi, shellRules(dir), true); err != nil {
		return err
	} else {
		status += "enforced, ABI " + strconv.Itoa(abi)
	}
	if la.probe {
		fmt.Fprintln(os.Stdout, status)
	}
	// Nothing but stdin, stdout and stderr crosses: not bwrap's own descriptors, not
	// this executable's, not whatever the spine's parent left open.
	if err := unix.CloseRange(3, ^uint(0), 0); err != nil {
		return fmt.Errorf("close_range: %w", err)
	}
	return syscall.Exec(la.argv[0], la.argv, os.Environ())
}
