//go:build unix

package sandbox

import (
	"os/exec"
	"syscall"
)

// inOwnProcessGroup makes cmd the leader of a new process group and makes cancelling it
// kill the whole group, so that children a command started (sleep in a pipeline, a
// background job) die with it.
func inOwnProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// killGroup kills what is left of cmd's process group once its leader has exited.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
