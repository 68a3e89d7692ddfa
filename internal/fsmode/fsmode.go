// Package fsmode names file types for people: what a path turned out to be when a file
// was expected. It owns only the wording; it does no I/O.
package fsmode

import "io/fs"

// Name is a file type with its article: "a named pipe (FIFO)", "a directory", …
func Name(m fs.FileMode) string {
	switch t := m.Type(); {
	case t&fs.ModeSymlink != 0:
		return "a symlink"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeCharDevice != 0:
		return "a character device"
	case t&fs.ModeDevice != 0:
		return "a block device"
	case t&fs.ModeDir != 0:
		return "a directory"
	case t == 0:
		return "a regular file"
	}
	return "a special file"
}
