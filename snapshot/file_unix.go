//go:build unix

package snapshot

import (
	"io/fs"
	"syscall"
)

// noFollow makes an open fail on a symlink instead of following it: a tool may swap a
// file for a link between the walk and the read.
const noFollow = syscall.O_NOFOLLOW

// inode is the file's inode number, 0 when the platform does not say.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
