package trace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentspine/spine/internal/fsmode"
)

// checkRegular says what path is when it is not a regular file.
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		// "PATH: no such file or directory", as every command says of a file it cannot
		// use, not "stat PATH: …"; errors.Is(err, fs.ErrNotExist) still holds.
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %s, not a regular file", path, fsmode.Name(fi.Mode()))
	}
	return nil
}

// ReadBytes reads a whole trace file that OpenRegular accepts, for readers that pass
// over it more than once (the chain check, then the decoder).
func ReadBytes(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}
