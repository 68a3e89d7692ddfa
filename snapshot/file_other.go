//go:build !unix

package snapshot

import "io/fs"

const noFollow = 0

// inode is 0 where the platform does not say: such files are never reused unread.
func inode(fs.FileInfo) uint64 { return 0 }
