//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestCgroupsOfTwoSandboxesDoNotCollide: two sandboxes of one process (two runs at once)
// make their call cgroups in the same parent; each call still gets a directory of its own.
func TestCgroupsOfTwoSandboxesDoNotCollide(t *testing.T) {
	a, err := findCgroups()
	if err != nil {
		t.Skipf("this machine gives no cgroup to limit a call: %v", err)
	}
	b, err := findCgroups()
	if err != nil {
		t.Fatal(err)
	}
	ca, err := a.create(DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	defer ca.remove()
	cb, err := b.create(DefaultLimits)
	if err != nil {
		t.Fatalf("the second sandbox's call: %v", err)
	}
	defer cb.remove()
	if ca.dirs[0] == cb.dirs[0] {
		t.Errorf("both calls got %s", ca.dirs[0])
	}
}

// TestCgroupLeftBehindIsNoObstacle: a process killed mid-call leaves its call cgroup
// behind, and pids are reused, so the name this process would take next may stand
// already. The call takes the next free name; and the sweep removes the empty
// leftovers of processes that are gone and of this pid's earlier holder (it runs once,
// before this process makes any), but not those of a live process.
func TestCgroupLeftBehindIsNoObstacle(t *testing.T) {
	h, err := findCgroups()
	if err != nil {
		t.Skipf("this machine gives no cgroup to limit a call: %v", err)
	}
	taken := filepath.Join(h.pids, fmt.Sprintf("spine-%d-%d", os.Getpid(), cgroupSeq.Load()+1))
	if err := os.Mkdir(taken, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(taken)
	cg, err := h.create(DefaultLimits)
	if err != nil {
		t.Fatalf("a leftover under the next name stopped the call: %v", err)
	}
	defer cg.remove()
	if cg.dirs[0] == taken {
		t.Fatalf("the call took the leftover %s", taken)
	}

	gone := 1 << 22 // above any pid_max: no process has it
	for pidExists(gone) {
		gone--
	}
	leftovers := map[string]bool{ // name → removed by the sweep
		fmt.Sprintf("spine-%d-1", gone):             true,
		fmt.Sprintf("spine-%d-999999", os.Getpid()): true,
		fmt.Sprintf("spine-%d-1", os.Getppid()):     false, // a live process's
		fmt.Sprintf("other-%d-1", gone):             false, // not the spine's
		fmt.Sprintf("spine-%d", gone):               false, // not a call cgroup's name
	}
	for name := range leftovers {
		if err := os.Mkdir(filepath.Join(h.pids, name), 0o755); err != nil {
			t.Fatal(err)
		}
		defer os.Remove(filepath.Join(h.pids, name))
	}
	sweepStale(h.pids)
	for name, removed := range leftovers {
		_, err := os.Stat(filepath.Join(h.pids, name))
		if gone := errors.Is(err, os.ErrNotExist); gone != removed {
			t.Errorf("%s: removed %v, want %v", name, gone, removed)
		}
	}
}
