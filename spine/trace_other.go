//go:build !unix

package spine

import "os"

// lockTrace does nothing where flock is not available.
func lockTrace(*os.File, string) error { return nil }

// TraceLocked reports false where flock is not available.
func TraceLocked(path string) (bool, error) {
	f, err := openRegularNonBlocking(path)
	if err != nil {
		return false, err
	}
	return false, f.Close()
}

// openRegularNonBlocking opens path for reading if it is a regular file; without
// O_NONBLOCK the check before the open is all there is.
func openRegularNonBlocking(path string) (*os.File, error) {
	if err := checkRegular(path); err != nil {
		return nil, err
	}
	return os.Open(path)
}
