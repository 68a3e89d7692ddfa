package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// The helpers the trace commands share for their arguments and output files.

// traceArgs expands directories into the *.jsonl files under them, sorted. No argument
// is a usage error (exit 2); an argument that does not exist, or a directory with no
// trace under it, is an input error (exit 1), as for every command that reads a file.
func traceArgs(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, usageErrorf("expected trace files or directories")
	}
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, fileError(err)
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
				found = append(found, p)
			}
			return err
		})
		if err != nil {
			return nil, fileError(err)
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: a directory with no .jsonl trace under it", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// writeNewFile writes data to path, which must not exist.
func writeNewFile(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileError says an input file's error the same way in every command: "PATH: reason"
// ("missing.yaml: no such file or directory"), not the system call's "stat PATH: …" or
// "open PATH: …". Other errors are returned as they are: they name their file already.
func fileError(err error) error {
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

// pathError is fileError's rewording; errors.Is and errors.As still see the original.
type pathError struct {
	msg string
	err error
}

func (e *pathError) Error() string { return e.msg }
func (e *pathError) Unwrap() error { return e.err }

// namedError is err headed by path, unless it already begins with it.
func namedError(path string, err error) string {
	if msg := err.Error(); strings.HasPrefix(msg, path+":") {
		return msg
	}
	return path + ": " + err.Error()
}
