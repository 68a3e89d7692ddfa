//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"runtime"
	"unsafe" // the Landlock calls take pointers to their attribute structs; x/sys has no wrappers

	"golang.org/x/sys/unix"
)

// Landlock is the second wall: whatever the mount namespace shows, a restricted thread
// (and what it executes) may write only beneath the paths its ruleset names. It is
// applied by the launcher to the shell and by the file tools to their own thread. A
// kernel without it (before 5.13, or with the LSM off) leaves the wall missing; the
// sandbox still runs and says so.

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

// landlockABI is the kernel's Landlock ABI version, or an error saying why there is none.
func landlockABI() (int, error) {
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, llCreateVersion)
	switch {
	case errno == unix.ENOSYS:
		return 0, errors.New("the kernel has no Landlock (before 5.13)")
	case errno == unix.EOPNOTSUPP:
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

// llRule grants access (masked to what the ruleset handles) beneath path.
type llRule struct {
	path   string
	access uint64
}

// llReadOnly reads and executes; llWritable is every right.
const (
	llReadOnly = llExecute | llReadFile | llReadDir
	llWritable = ^uint64(0)
)

// restrictThread confines the calling OS thread, which must be locked to its goroutine
// and never unlocked, to rules. Paths that do not exist are skipped. It sets
// no_new_privs on the thread, as Landlock requires of an unprivileged caller.
func restrictThread(abi int, rules []llRule, scoped bool) error {
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
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), size, 0)
	runtime.KeepAlive(&attr)
	if errno != 0 {
		return fmt.Errorf("landlock_create_ruleset: %w", errno)
	}
	defer unix.Close(int(fd))
	for _, r := range rules {
		pfd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			return fmt.Errorf("landlock rule %s: %w", r.path, err)
		}
		access := r.access & handled
		var st unix.Stat_t
		if unix.Fstat(pfd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			// Rights about directory entries make no sense on a file; the kernel refuses them.
			access &= llExecute | llWriteFile | llReadFile | llTruncate | llIoctlDev
		}
		pb := llPathBeneath{allowed: access, parentFD: int32(pfd)}
		_, _, errno := unix.Syscall6(unix.SYS_LANDLOCK_ADD_RULE, fd, llRulePathBeneath, uintptr(unsafe.Pointer(&pb)), 0, 0, 0)
		runtime.KeepAlive(&pb)
		unix.Close(pfd)
		if errno != 0 {
			return fmt.Errorf("landlock rule %s: %w", r.path, errno)
		}
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return fmt.Errorf("landlock_restrict_self: %w", errno)
	}
	return nil
}

// shellRules are the launcher's rules for a command in work dir dir: read and execute
// what the sandbox shows, write only beneath dir and /tmp, use the harmless devices,
// and write the process's own /proc entries (the read-only mounts over /proc/sys and the
// like stay read-only whatever Landlock allows).
func shellRules(dir string) []llRule {
	return []llRule{
		{"/", llReadOnly},
		{dir, llWritable},
		{"/tmp", llWritable},
		{"/dev/shm", llWritable},
		{"/dev", llReadOnly | llWriteFile | llTruncate | llIoctlDev},
		{"/proc", llReadOnly | llWriteFile | llTruncate},
	}
}
