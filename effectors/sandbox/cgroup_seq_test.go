//go:build linux

package sandbox

import "testing"

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
