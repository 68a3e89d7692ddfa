//go:build linux

package sandbox

import (
	"golang.org/x/sys/unix"

	"github.com/agentspine/spine/effectors/sandbox/launch"
)

// launchLimits are the per-process limits the launcher applies before the shell starts:
// RLIMIT_NPROC (counted per host uid, which is the sandbox's own unprivileged one), the
// largest file, CPU time, open descriptors, no core dumps, and RLIMIT_AS when no cgroup
// bounds the call's memory.
func (l Limits) launchLimits(withAS bool) []launch.Limit {
	out := []launch.Limit{
		{Resource: unix.RLIMIT_NPROC, Value: uint64(l.Processes)},
		{Resource: unix.RLIMIT_FSIZE, Value: uint64(l.FileBytes)},
		{Resource: unix.RLIMIT_CPU, Value: uint64(l.CPUSeconds)},
		{Resource: unix.RLIMIT_NOFILE, Value: uint64(l.OpenFiles)},
		{Resource: unix.RLIMIT_CORE, Value: 0},
	}
	if withAS {
		out = append(out, launch.Limit{Resource: unix.RLIMIT_AS, Value: uint64(l.MemoryBytes)})
	}
	return out
}
