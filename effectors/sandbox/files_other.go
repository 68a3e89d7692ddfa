//go:build !unix

package sandbox

import "io/fs"

// Without O_NONBLOCK and O_DIRECTORY the file tools rely on the checks before and after
// opening alone.
const (
	oNonblock  = 0
	oDirectory = 0
)

// linkCount is 1: the stat data of these systems does not carry a link count.
func linkCount(fs.FileInfo) uint64 { return 1 }
