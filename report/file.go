package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/spine/trace"
)

// WritePage writes a rendered page to path through a temporary file in the same
// directory, so a reader never sees half a page and a failed write leaves any old page
// whole.
func WritePage(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil { // about the file asked for, not the temporary one
		return fmt.Errorf("%s: cannot write in %s: %w", path, filepath.Dir(path), cmp.Or(errors.Unwrap(err), err))
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
			return fmt.Errorf("%s is a directory: name a file with -o", path)
		}
		return fmt.Errorf("%s: %w", path, cmp.Or(errors.Unwrap(err), err))
	}
	return nil
}

// PageFile is where the page of the trace at path goes: out, or by default beside the
// trace, .jsonl made .html; "-" is stdout. A page that would overwrite its trace is an
// error.
func PageFile(path, out string) (string, error) {
	if out == "" {
		out = strings.TrimSuffix(path, ".jsonl") + ".html"
	}
	if out != "-" && filepath.Clean(out) == filepath.Clean(path) {
		return "", fmt.Errorf("%s: the page would overwrite the trace; name another file with -o", path)
	}
	return out, nil
}

// WriteTracePage builds the page of the trace f read from path and writes it to out
// (PageFile's answer): to stdout for "-", else through WritePage. It returns the report
// the page shows.
func WriteTracePage(path string, f *trace.File, out string, stdout io.Writer) (*Report, error) {
	r, err := Build(path, f)
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	if err := Render(&page, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if out == "-" {
		_, err = stdout.Write(page.Bytes())
		return r, err
	}
	return r, WritePage(out, page.Bytes())
}
