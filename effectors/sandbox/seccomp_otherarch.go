//go:build linux && !amd64 && !arm64

package sandbox

// nativeSeccompArch is nil: the filter has system call tables for x86_64 and arm64 only,
// and the sandbox reports the wall as missing elsewhere.
var nativeSeccompArch *seccompArch
