//go:build !unix

package trace

import "os"

// lockFile does nothing where flock is not available.
func lockFile(*os.File, string) error { return nil }

// Locked reports false where flock is not available.
func Locked(path string) (bool, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return false, err
	}
	return false, f.Close()
}

// OpenRegular opens a file of outside input for reading if it is a regular file;
// without O_NONBLOCK the check before the open is all there is.
func OpenRegular(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}
