//go:build linux && (amd64 || arm64)

package sandbox

import (
	"maps"

	"golang.org/x/sys/unix"
)

// syscallNumbers is the numbers of the calls the filter names on this architecture: those
// both supported architectures have (unix.SYS_* are the building architecture's numbers)
// and the architecture's own, own.
func syscallNumbers(own map[string]uint32) map[string]uint32 {
	numbers := map[string]uint32{
		"ptrace": unix.SYS_PTRACE, "process_vm_readv": unix.SYS_PROCESS_VM_READV, "process_vm_writev": unix.SYS_PROCESS_VM_WRITEV,
		"kcmp": unix.SYS_KCMP, "pidfd_getfd": unix.SYS_PIDFD_GETFD,
		"mount": unix.SYS_MOUNT, "umount2": unix.SYS_UMOUNT2, "pivot_root": unix.SYS_PIVOT_ROOT, "chroot": unix.SYS_CHROOT,
		"open_tree": unix.SYS_OPEN_TREE, "move_mount": unix.SYS_MOVE_MOUNT, "fsopen": unix.SYS_FSOPEN, "fsconfig": unix.SYS_FSCONFIG,
		"fsmount": unix.SYS_FSMOUNT, "fspick": unix.SYS_FSPICK, "mount_setattr": unix.SYS_MOUNT_SETATTR,
		"unshare": unix.SYS_UNSHARE, "setns": unix.SYS_SETNS,
		"keyctl": unix.SYS_KEYCTL, "add_key": unix.SYS_ADD_KEY, "request_key": unix.SYS_REQUEST_KEY,
		"bpf": unix.SYS_BPF, "perf_event_open": unix.SYS_PERF_EVENT_OPEN, "userfaultfd": unix.SYS_USERFAULTFD,
		"io_uring_setup": unix.SYS_IO_URING_SETUP, "io_uring_enter": unix.SYS_IO_URING_ENTER, "io_uring_register": unix.SYS_IO_URING_REGISTER,
		"fanotify_init": unix.SYS_FANOTIFY_INIT, "open_by_handle_at": unix.SYS_OPEN_BY_HANDLE_AT, "name_to_handle_at": unix.SYS_NAME_TO_HANDLE_AT,
		"lookup_dcookie": unix.SYS_LOOKUP_DCOOKIE,
		"init_module":    unix.SYS_INIT_MODULE, "finit_module": unix.SYS_FINIT_MODULE, "delete_module": unix.SYS_DELETE_MODULE,
		"kexec_load": unix.SYS_KEXEC_LOAD, "kexec_file_load": unix.SYS_KEXEC_FILE_LOAD, "reboot": unix.SYS_REBOOT,
		"settimeofday": unix.SYS_SETTIMEOFDAY, "clock_settime": unix.SYS_CLOCK_SETTIME, "clock_adjtime": unix.SYS_CLOCK_ADJTIME,
		"adjtimex": unix.SYS_ADJTIMEX, "swapon": unix.SYS_SWAPON, "swapoff": unix.SYS_SWAPOFF, "acct": unix.SYS_ACCT,
		"syslog": unix.SYS_SYSLOG, "quotactl": unix.SYS_QUOTACTL, "quotactl_fd": unix.SYS_QUOTACTL_FD, "nfsservctl": unix.SYS_NFSSERVCTL,
		"vhangup": unix.SYS_VHANGUP,
		"mbind":   unix.SYS_MBIND, "set_mempolicy": unix.SYS_SET_MEMPOLICY, "migrate_pages": unix.SYS_MIGRATE_PAGES, "move_pages": unix.SYS_MOVE_PAGES,
		"clone": unix.SYS_CLONE, "clone3": unix.SYS_CLONE3, "personality": unix.SYS_PERSONALITY, "ioctl": unix.SYS_IOCTL, "socket": unix.SYS_SOCKET,
	}
	maps.Copy(numbers, own)
	return numbers
}
