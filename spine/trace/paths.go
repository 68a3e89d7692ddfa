package trace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Paths expands the trace files and directories a reader was given into trace files:
// a file as it is, a directory as the *.jsonl files under it, sorted. A directory with
// none is an error, as is no argument at all. Errors name the argument as given.
func Paths(args []string) ([]string, error) {
	if len(args) == 0 {
		return nil, fmt.Errorf("expected trace files or directories")
	}
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, err // a *fs.PathError: the caller words it
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
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: a directory with no .jsonl trace under it", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// WriteNewFile writes a whole trace (data) to path, which must not exist: a trace
// already there is never overwritten.
func WriteNewFile(path string, data []byte) error {
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
