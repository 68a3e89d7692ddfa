// Package fsmode names file types for people: what a path turned out to be when a file
// was expected. It owns only the wording; it does no I/O.
package fsmode

import "io/fs"

// names are the file types by their mode bit, in the order they are told apart: a
// character device has ModeDevice set as well.
var names = []struct {
	bit  fs.FileMode
	name string
}{
	{fs.ModeSymlink, "a symlink"},
	{fs.ModeNamedPipe, "a named pipe (FIFO)"},
	{fs.ModeSocket, "a socket"},
	{fs.ModeCharDevice, "a character device"},
	{fs.ModeDevice, "a block device"},
	{fs.ModeDir, "a directory"},
}

// Name is a file type with its article: "a named pipe (FIFO)", "a directory", …
func Name(m fs.FileMode) string {
	t := m.Type()
	if t == 0 {
		return "a regular file"
	}
	for _, n := range names {
		if t&n.bit != 0 {
			return n.name
		}
	}
	return "a special file"
}
