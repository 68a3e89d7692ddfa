//go:build unix

package sandbox

import (
	"io/fs"
	"syscall"
)

// Open flags the file tools add: O_NONBLOCK so that opening a FIFO swapped in after the
// check returns at once instead of waiting for a writer, O_DIRECTORY so that a listing
// never opens anything but a directory.
const (
	oNonblock  = syscall.O_NONBLOCK
	oDirectory = syscall.O_DIRECTORY
)

// linkCount is the number of hard links of a file, from its stat data.
func linkCount(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
