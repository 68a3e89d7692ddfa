//go:build !unix

package memory

// lockBusy is false where the lock's refusal cannot be told from other errors.
func lockBusy(error) bool { return false }
