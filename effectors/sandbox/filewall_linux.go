//go:build linux

package sandbox

import (
	"fmt"
	"runtime"
)

// newFileWall returns the wall for a work dir, or nil and why there is none.
func newFileWall(root string) (*fileWall, string) {
	abi, err := landlockABI()
	if err != nil {
		return nil, err.Error()
	}
	rules := fileToolRules(root)
	return newFileWallWith(func() error {
		// Never unlocked: when serve returns, the goroutine ends locked and the runtime
		// ends its thread, restriction and all.
		runtime.LockOSThread()
		if err := restrictThread(abi, rules, false); err != nil {
			return fmt.Errorf("sandbox: restricting the file tools' thread: %w", err)
		}
		return nil
	}), fmt.Sprintf("landlock (ABI %d): the file tools' threads reach only the work dir", abi)
}

// fileToolRules are the file tools' rules: every right beneath the work dir, nothing
// elsewhere.
func fileToolRules(root string) []llRule {
	return []llRule{{Path: root, Access: llWritable}}
}
