package cli

import (
	"errors"
	"io/fs"
	"strings"
	"syscall"
)

// FileError says an input file's error the same way in every command: "PATH: reason"
// ("missing.yaml: no such file or directory"), not the system call's "stat PATH: …" or
// "open PATH: …". Other errors are returned as they are: they name their file already.
func FileError(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	why := pe.Err.Error()
	if errors.Is(pe.Err, syscall.EISDIR) {
		why = "a directory, not a regular file"
	}
	return &pathError{strings.Replace(err.Error(), pe.Error(), pe.Path+": "+why, 1), err}
}

// pathError is FileError's rewording; errors.Is and errors.As still see the original.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

// Named is err's text headed by path, unless it already begins with it.
func Named(path string, err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, path+":") {
		return msg
	}
	return path + ": " + err.Error()
}
