//go:build !unix

package sandbox

import "os/exec"

// inOwnProcessGroup falls back to killing the shell alone where process groups do not
// exist; WaitDelay then bounds the wait for its children's output.
func inOwnProcessGroup(cmd *exec.Cmd) {}

// killGroup has no group to kill here.
func killGroup(cmd *exec.Cmd) {}
