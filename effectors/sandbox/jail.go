package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Jail runs one shell command confined. The shell tool hands it the command; the jail
// decides what the processes can see and do, and makes sure that when Run returns every
// process the command started is gone.
type Jail interface {
	// Run runs /bin/sh -c p.Script and waits for it. The context's deadline is the call's
	// time limit: when it passes, or the context is cancelled, everything is killed. The
	// error is what exec.Cmd.Run returns (an *exec.ExitError for a non-zero status).
	Run(ctx context.Context, p Process) (RunReport, error)
	// Describe says what the jail isolates, for the trace header and the README.
	Describe() Isolation
}

// Process is one shell call.
type Process struct {
	Script string
	Dir    string   // the work dir, absolute
	Env    []string // the command's whole environment
	Out    io.Writer
}

// RunReport is what a jail noticed about a finished call beyond its exit status.
type RunReport struct {
	// Limits names the limits the command ran into ("processes (256)", …), sorted.
	Limits []string
}

// Isolation describes a jail in words a user can check: the mechanism and every property
// it provides or lacks.
type Isolation struct {
	Mechanism string   `json:"mechanism"`          // "bubblewrap 0.8.0", "none"
	Isolated  []string `json:"isolated,omitempty"` // what holds, e.g. "network: off"
	Missing   []string `json:"missing,omitempty"`  // what does not
	AllowNet  []string `json:"allow_net,omitempty"`
}

// Confined tells whether the jail isolates anything at all.
func (i Isolation) Confined() bool { return i.Mechanism != "" && i.Mechanism != MechanismNone }

// MechanismNone is the Isolation.Mechanism of Unconfined.
const MechanismNone = "none"

// Unconfined runs commands as this process's user with no isolation beyond a process
// group that is killed when the call ends. It exists for users who say so explicitly
// (spine run --no-sandbox) and for tests of the policy layer; its name says what it is.
type Unconfined struct{}

var _ Jail = Unconfined{}

// Run implements Jail.
func (Unconfined) Run(ctx context.Context, p Process) (RunReport, error) {
	cmd := exec.CommandContext(ctx, "/bin/sh", "-c", p.Script)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdout, cmd.Stderr = p.Out, p.Out
	cmd.WaitDelay = waitDelay
	inOwnProcessGroup(cmd)
	err := cmd.Run()
	killGroup(cmd) // children that left the pipes alone outlive the shell otherwise
	return RunReport{}, err
}

// Describe implements Jail.
func (Unconfined) Describe() Isolation {
	return Isolation{Mechanism: MechanismNone, Missing: []string{
		"file system: the command sees and may change everything this user can",
		"secrets: the environment is filtered, but files and other processes are readable",
		"network: unrestricted",
		"limits: only the time limit; children that leave the process group survive",
	}}
}

// ErrNoIsolation is the kind of refusal of a shell call on a machine that cannot isolate
// it, when the user did not choose to run tools unconfined.
var ErrNoIsolation = errors.New("no isolation available")

// UnavailableError says why a machine cannot isolate tools, and what would fix it.
type UnavailableError struct {
	Missing []string
	Fix     string
}

func (e *UnavailableError) Error() string {
	msg := "tools cannot be isolated on this machine: " + strings.Join(e.Missing, "; ")
	if e.Fix != "" {
		msg += fmt.Sprintf(" (%s)", e.Fix)
	}
	return msg
}
