//go:build linux && arm64

package sandbox

import "golang.org/x/sys/unix"

// nativeSeccompArch is arm64 (aarch64): it has no call of its own beyond the shared ones.
var nativeSeccompArch = &seccompArch{name: "aarch64", audit: unix.AUDIT_ARCH_AARCH64, numbers: syscallNumbers(nil)}
