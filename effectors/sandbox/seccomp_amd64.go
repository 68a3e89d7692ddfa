//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

// nativeSeccompArch is x86_64; calls through the x32 ABI are refused. Its own calls are
// the old ones arm64 never had.
var nativeSeccompArch = &seccompArch{name: "x86_64", audit: unix.AUDIT_ARCH_X86_64, x32: true, numbers: syscallNumbers(map[string]uint32{
	"create_module": unix.SYS_CREATE_MODULE, "get_kernel_syms": unix.SYS_GET_KERNEL_SYMS, "query_module": unix.SYS_QUERY_MODULE,
	"uselib": unix.SYS_USELIB, "ustat": unix.SYS_USTAT, "sysfs": unix.SYS_SYSFS, "_sysctl": unix.SYS__SYSCTL,
	"iopl": unix.SYS_IOPL, "ioperm": unix.SYS_IOPERM,
})}
