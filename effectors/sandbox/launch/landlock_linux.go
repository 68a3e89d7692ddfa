//go:build linux

package launch

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe" // the Landlock calls take pointers to their attribute structs; x/sys has no wrappers

	"syscall"
)

// Landlock is the second wall: whatever the mount namespace shows, a restricted thread
// (and what it executes) may write only beneath the paths its ruleset names. It is
// applied by the launcher to the shell and by the sandbox's file tools to their own
// threads. A kernel without it (before 5.13, or with the LSM off) leaves the wall
// missing; the sandbox still runs and says so.

// Access rights by the ABI that introduced them.
const (
	llExecute    = 1 << 0
	llWriteFile  = 1 << 1
	llReadFile   = 1 << 2
	llReadDir    = 1 << 3
	llRemoveDir  = 1 << 4
	llRemoveFile = 1 << 5
	llMakeChar   = 1 << 6
	llMakeDir    = 1 << 7
	llMakeReg    = 1 << 8
	llMakeSock   = 1 << 9
	llMakeFifo   = 1 << 10
	llMakeBlock  = 1 << 11
	llMakeSym    = 1 << 12
	llRefer      = 1 << 13 // ABI 2
	llTruncate   = 1 << 14 // ABI 3
	llIoctlDev   = 1 << 15 // ABI 5

	llScopeAbstractUnix = 1 << 0 // ABI 6
	llScopeSignal       = 1 << 1 // ABI 6

	llRulePathBeneath = 1
	llCreateVersion   = 1 << 0
)

// llRulesetAttr and llPathBeneath are struct landlock_ruleset_attr (its first three
// fields) and struct landlock_path_beneath_attr, which the kernel reads packed.
type llRulesetAttr struct {
	handledFS  uint64
	handledNet uint64
	scoped     uint64
}

type llPathBeneath struct {
	allowed  uint64
	parentFD int32
	_        [4]byte // the kernel's struct is packed: 12 bytes read of these 16
}

// LandlockABI is the kernel's Landlock ABI version, or an error saying why there is none.
func LandlockABI() (int, error) {
	v, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, llCreateVersion)
	switch {
	case errno == syscall.ENOSYS:
		return 0, errors.New("the kernel has no Landlock (before 5.13)")
	case errno == syscall.EOPNOTSUPP:
		return 0, errors.New("Landlock is built but not enabled (lsm= boot parameter)")
	case errno != 0:
		return 0, fmt.Errorf("Landlock probe: %w", errno)
	}
	return int(v), nil
}

// llHandled is every file-system right the ABI can restrict.
func llHandled(abi int) uint64 {
	h := uint64(llMakeSym<<1 - 1)
	if abi >= 2 {
		h |= llRefer
	}
	if abi >= 3 {
		h |= llTruncate
	}
	if abi >= 5 {
		h |= llIoctlDev
	}
	return h
}

// Rule grants Access (masked to what the ruleset handles) beneath Path.
type Rule struct {
	Path   string
	Access uint64
}

// ReadOnly reads and executes; Writable is every right.
const (
	ReadOnly = llExecute | llReadFile | llReadDir
	Writable = ^uint64(0)
)

// RestrictThread confines the calling OS thread, which must be locked to its goroutine
// and never unlocked, to rules. Paths that do not exist are skipped. It sets
// no_new_privs on the thread, as Landlock requires of an unprivileged caller.
func RestrictThread(abi int, rules []Rule, scoped bool) error {
	handled := llHandled(abi)
	attr := llRulesetAttr{handledFS: handled}
	size := unsafe.Sizeof(attr.handledFS)
	if abi >= 4 {
		size += unsafe.Sizeof(attr.handledNet) // no network rights handled: namespaces do that
	}
	if scoped && abi >= 6 {
		attr.scoped = llScopeAbstractUnix | llScopeSignal
		size = unsafe.Sizeof(attr)
	}
	fd, _, errno := syscall.Syscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), size, 0)
	runtime.KeepAlive(&attr)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer syscall.Close(int(fd))
	for _, r := range rules {
		pfd, err := syscall.Open(r.Path, oPath|syscall.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, syscall.ENOENT) {
				continue
			}
			return fmt.Errorf("landlock rule %s: %w", r.Path, err)
		}
		access := r.Access & handled
		var st syscall.Stat_t
		if syscall.Fstat(pfd, &st) == nil && st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			// Rights about directory entries make no sense on a file; the kernel refuses them.
			access &= llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
		}
		pb := llPathBeneath{allowed: access, parentFD: int32(pfd)}
		_, _, errno := syscall.Syscall6(sysLandlockAddRule, fd, llRulePathBeneath, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		runtime.KeepAlive(&pb)
		syscall.Close(pfd)
		if errno != 0 {
			return fmt.Errorf("landlock rule %s: %w", r.Path, errno)
		}
	}
	if err := noNewPrivs(); err != nil {
		return err
	}
	if _, _, errno := syscall.Syscall(sysLandlockRestrictSelf, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// ShellRules are the launcher's rules for a command in work dir dir: read and execute
// what the sandbox shows, write only beneath dir and /tmp, use the harmless devices,
// and write the process's own /proc entries (the read-only mounts over /proc/sys and the
// like stay read-only whatever Landlock allows).
func ShellRules(dir string) []Rule {
	return []Rule{
		{"/", ReadOnly},
		{dir, Writable},
		{"/tmp", Writable},
		{"/dev/shm", Writable},
		{"/dev", ReadOnly | llWriteFile | llTruncate | llIoctlDev},
		{"/proc", ReadOnly | llWriteFile | llTruncate},
	}
}
