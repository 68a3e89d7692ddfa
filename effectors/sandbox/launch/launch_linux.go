//go:build linux

package launch

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// Arg, as an executable's first argument, makes it the launcher. The launcher is the last
// step between bubblewrap and the command: the spine's own executable, run inside the
// sandbox (bwrap executes it from a descriptor, so no path of the host is shown for it).
// It applies what bwrap cannot — the resource limits, Landlock — closes every
// descriptor but 0, 1 and 2, and executes the command. It runs from this package's
// init, under the seccomp filter bwrap has already loaded.
const Arg = "spine-sandbox-launch"

func init() {
	if len(os.Args) > 1 && os.Args[1] == Arg {
		runtime.LockOSThread() // Landlock and no_new_privs hold for this thread, which execs
		err := launch(os.Args[2:])
		fmt.Fprintf(os.Stderr, "spine-sandbox-launch: %v\n", err)
		os.Exit(126)
	}
}

// launchArgs is the launcher's command line after launchArg: the limits, whether to
// report, then the command.
type launchArgs struct {
	limits []Limit
	probe  bool
	argv   []string
}

// Limit is one rlimit the launcher lowers: a RLIMIT_* resource and its value.
type Limit struct {
	Resource int
	Value    uint64
}

// Argv is the launcher's command line: exe, Arg, resource=value pairs, "probe" or "run",
// "--", the command.
func Argv(exe string, limits []Limit, probe bool, argv ...string) []string {
	a := []string{exe, Arg}
	for _, l := range limits {
		a = append(a, strconv.Itoa(l.Resource)+"="+strconv.FormatUint(l.Value, 10))
	}
	mode := "run"
	if probe {
		mode = "probe"
	}
	a = append(a, mode, "--")
	return append(a, argv...)
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
		la.limits = append(la.limits, Limit{res, v})
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
		var cur syscall.Rlimit
		if err := syscall.Getrlimit(l.Resource, &cur); err != nil {
			return fmt.Errorf("getrlimit %d: %w", l.Resource, err)
		}
		v := min(l.Value, cur.Max) // lowering needs no privilege; raising would fail
		if err := syscall.Setrlimit(l.Resource, &syscall.Rlimit{Cur: v, Max: v}); err != nil {
			return fmt.Errorf("setrlimit %d=%d: %w", l.Resource, v, err)
		}
	}
	if err := noNewPrivs(); err != nil {
		return err
	}
	status := "landlock: "
	if abi, err := LandlockABI(); err != nil {
		status += "missing: " + err.Error()
	} else if dir, err := os.Getwd(); err != nil {
		return err
	} else if err := RestrictThread(abi, ShellRules(dir), true); err != nil {
		return err
	} else {
		status += "enforced, ABI " + strconv.Itoa(abi)
	}
	if la.probe {
		fmt.Fprintln(os.Stdout, status)
	}
	// Nothing but stdin, stdout and stderr crosses: not bwrap's own descriptors, not
	// this executable's, not whatever the spine's parent left open. They are marked
	// close-on-exec rather than closed, so that the exec closes them: closing them now
	// would pull the runtime's own descriptors (its poller's) from under its other
	// threads, which die of it.
	if _, _, errno := syscall.Syscall(sysCloseRange, 3, ^uintptr(0), closeRangeCloexec); errno != 0 {
		return fmt.Errorf("close_range: %w", errno)
	}
	return syscall.Exec(la.argv[0], la.argv, os.Environ())
}
