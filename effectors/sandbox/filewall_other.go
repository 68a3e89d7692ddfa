//go:build !linux

package sandbox

// newFileWall: Landlock is Linux's; elsewhere the file tools rely on their path checks.
func newFileWall(string) (*fileWall, string) {
	return nil, "this system has no Landlock"
}
