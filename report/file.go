package report

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
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
