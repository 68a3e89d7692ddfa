package sandbox

import (
	"cmp"
	"errors"
	"fmt"
)

// Limits bound what one shell call may consume. Zero values take the defaults.
type Limits struct {
	Processes   int   // processes and threads alive at once in the call
	MemoryBytes int64 // memory of the whole call (a cgroup) or of each process (RLIMIT_AS)
	FileBytes   int64 // largest file a process may write (RLIMIT_FSIZE)
	CPUSeconds  int   // CPU time of each process (RLIMIT_CPU)
	OpenFiles   int   // open descriptors per process (RLIMIT_NOFILE)
	TmpBytes    int64 // size of the call's private /tmp
}

// DefaultLimits are generous for builds and tests and small enough that a runaway call
// cannot take the machine down.
var DefaultLimits = Limits{
	Processes:   512,
	MemoryBytes: 4 << 30,
	FileBytes:   1 << 30,
	CPUSeconds:  600,
	OpenFiles:   4096,
	TmpBytes:    1 << 30,
}

func (l Limits) withDefaults() (Limits, error) {
	if l.Processes < 0 || l.MemoryBytes < 0 || l.FileBytes < 0 || l.CPUSeconds < 0 || l.OpenFiles < 0 || l.TmpBytes < 0 {
		return l, errors.New("sandbox: limits must not be negative")
	}
	d := DefaultLimits
	l.Processes = cmp.Or(l.Processes, d.Processes)
	l.MemoryBytes = cmp.Or(l.MemoryBytes, d.MemoryBytes)
	l.FileBytes = cmp.Or(l.FileBytes, d.FileBytes)
	l.CPUSeconds = cmp.Or(l.CPUSeconds, d.CPUSeconds)
	l.OpenFiles = cmp.Or(l.OpenFiles, d.OpenFiles)
	l.TmpBytes = cmp.Or(l.TmpBytes, d.TmpBytes)
	return l, nil
}

// describe lists the limits for Isolation.Isolated.
func (l Limits) describe(procsBy, memBy string) []string {
	return []string{
		fmt.Sprintf("processes: at most %d (%s)", l.Processes, procsBy),
		fmt.Sprintf("memory: %s (%s)", bytesText(l.MemoryBytes), memBy),
		fmt.Sprintf("file size: %s per file (RLIMIT_FSIZE)", bytesText(l.FileBytes)),
		fmt.Sprintf("CPU time: %ds per process (RLIMIT_CPU)", l.CPUSeconds),
		fmt.Sprintf("private /tmp: %s (tmpfs)", bytesText(l.TmpBytes)),
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
