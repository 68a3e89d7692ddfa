package sandbox

import (
	"io/fs"
	"syscall"
)

// changeTime is a file's inode change time, from its stat data: a link, an unlink or a
// rename that moves one of its names sets it.
func changeTime(fi fs.FileInfo) syscall.Timespec {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim
	}
	return syscall.Timespec{}
}
