//go:build !linux

package sandbox

import "io/fs"

// changeTime is the modification time in nanoseconds: the inode change time's field
// differs from system to system, and the sandbox runs on Linux only; elsewhere the
// file tools' other checks stand alone.
func changeTime(fi fs.FileInfo) int64 { return fi.ModTime().UnixNano() }
