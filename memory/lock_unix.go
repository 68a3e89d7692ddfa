//go:build unix

package memory

import (
	"errors"
	"syscall"
)

// lockBusy tells LevelDB's refusal of a LOCK another process holds (flock with
// LOCK_NB fails with EWOULDBLOCK).
func lockBusy(err error) bool {
	return errors.Is(err, syscall.EWOULDBLOCK) || errors.Is(err, syscall.EAGAIN)
}
