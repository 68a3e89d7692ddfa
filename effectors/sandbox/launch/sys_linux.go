//go:build linux

package launch

import (
	"fmt"
	"syscall"
)

// The system calls the standard syscall package has no names for. The package takes them
// from there rather than from golang.org/x/sys/unix so that it is initialised early (see
// the package comment). These numbers come from the table that every architecture shares
// for system calls added since Linux 5.1; the flags and O_PATH are the generic ones,
// which amd64 and arm64 both use.
const (
	sysCloseRange            = 436
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	closeRangeCloexec = 1 << 2   // CLOSE_RANGE_CLOEXEC
	oPath             = 0x200000 // O_PATH
	prSetNoNewPrivs   = 38       // PR_SET_NO_NEW_PRIVS
)

// noNewPrivs sets no_new_privs on the calling thread: nothing it executes gains
// privileges (setuid bits, file capabilities), as Landlock and seccomp require.
func noNewPrivs() error {
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetNoNewPrivs, 1, 0, 0, 0, 0); errno != 0 {
		return fmt.Errorf("no_new_privs: %w", errno)
	}
	return nil
}
