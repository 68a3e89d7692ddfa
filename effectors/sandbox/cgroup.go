//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// cgroupHost creates one cgroup per shell call under this process's own cgroup, for the
// process and memory limits that rlimits cannot give (RLIMIT_NPROC does not bind root)
// and for killing whatever a call left behind. It knows cgroup v2 and the v1 pids and
// memory hierarchies.
type cgroupHost struct {
	v2     bool
	pids   string // parent directory for pids (v1) or for everything (v2)
	memory string // v1 only; "" when there is no memory hierarchy to use
}

// cgroupSeq numbers the call cgroups of the whole process: every sandbox of a process
// makes them in the same parent cgroup, so a count per host would give two sandboxes
// (two runs in one process) the same directory, and the second's calls would fail.
var cgroupSeq atomic.Int64

// callCgroup is one call's cgroup: a directory per hierarchy.
type callCgroup struct {
	host *cgroupHost
	dirs []string
}

// findCgroups locates this process's cgroups and checks that a child can be made and
// limited. It returns nil and the reason when it cannot.
func findCgroups() (*cgroupHost, error) {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, err
	}
	h := &cgroupHost{}
	v1 := map[string]string{}
	var v2Dir string
	for _, m := range parseMountinfo(mounts) {
		switch m.fstype {
		case "cgroup":
			for _, ctl := range []string{"pids", "memory"} {
				if slices.Contains(strings.Split(m.super, ","), ctl) {
					if p, ok := ownCgroupPath(own, ctl); ok {
						v1[ctl] = joinCgroup(m.point, m.root, p)
					}
				}
			}
		case "cgroup2":
			if p, ok := ownCgroupPath(own, ""); ok {
				v2Dir = joinCgroup(m.point, m.root, p)
			}
		}
	}
	if v1["pids"] != "" {
		h.pids, h.memory = v1["pids"], v1["memory"]
	} else if v2Dir != "" {
		ctl, _ := os.ReadFile(filepath.Join(v2Dir, "cgroup.subtree_control"))
		if !slices.Contains(strings.Fields(string(ctl)), "pids") {
			if err := os.WriteFile(filepath.Join(v2Dir, "cgroup.subtree_control"), []byte("+pids +memory"), 0); err != nil {
				return nil, fmt.Errorf("cgroup v2 at %s does not delegate the pids controller: %v", v2Dir, err)
			}
		}
		h.v2, h.pids = true, v2Dir
	} else {
		return nil, errors.New("no cgroup pids controller is mounted")
	}
	sweepOnce.Do(func() {
		for _, parent := range []string{h.pids, h.memory} {
			if parent != "" {
				sweepStale(parent)
			}
		}
	})
	probe, err := h.create(DefaultLimits)
	if err != nil {
		return nil, err
	}
	probe.remove()
	return h, nil
}

type mountEntry struct{ root, point, fstype, super string }

func parseMountinfo(data []byte) []mountEntry {
	var out []mountEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		out = append(out, mountEntry{root: f[3], point: f[4], fstype: g[0], super: g[2]})
	}
	return out
}

// ownCgroupPath finds this process's path in the hierarchy holding controller (v1), or
// its unified path (controller "").
func ownCgroupPath(data []byte, controller string) (string, bool) {
	for _, line := range strings.Split(string(data), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if controller == "" && parts[0] == "0" && parts[1] == "" {
			return parts[2], true
		}
		if controller != "" && slices.Contains(strings.Split(parts[1], ","), controller) {
			return parts[2], true
		}
	}
	return "", false
}

// joinCgroup maps a cgroup path to its directory under a mount whose root may itself be a
// sub-cgroup (as in a container).
func joinCgroup(point, root, path string) string {
	switch {
	case root == "/":
		return filepath.Join(point, path)
	case strings.HasPrefix(path, root):
		return filepath.Join(point, strings.TrimPrefix(path, root))
	}
	return point // the mount's root is already this process's own cgroup or above it

}

var sweepOnce sync.Once

// sweepStale removes the empty call cgroups under parent that a process which is gone
// left behind (one killed mid-call cannot remove its own), and those named after this
// process's pid, which a process before it held: a pid is reused, and its leftovers
// would otherwise stand where this process makes its own. It runs before this process
// makes any; a cgroup that still holds a process is not removed (rmdir refuses).
func sweepStale(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "spine-")
		pidText, _, ok2 := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !e.IsDir() || !ok || !ok2 || err != nil || pid <= 0 {
			continue
		}
		if pid == self || !pidExists(pid) {
			_ = os.Remove(filepath.Join(parent, e.Name()))
		}
	}
}

func pidExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// create makes and limits a fresh cgroup for one call. A name already taken (by a
// cgroup another process left behind) is skipped for the next.
func (h *cgroupHost) create(l Limits) (*callCgroup, error) {
	for try := 0; ; try++ {
		cg, err := h.createNamed(fmt.Sprintf("spine-%d-%d", os.Getpid(), cgroupSeq.Add(1)), l)
		if !errors.Is(err, os.ErrExist) || try == 9 {
			return cg, err
		}
	}
}

func (h *cgroupHost) createNamed(name string, l Limits) (*callCgroup, error) {
	cg := &callCgroup{host: h}
	set := func(dir, file, value string) error {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(value), 0); err != nil {
			return fmt.Errorf("cgroup %s: %w", file, err)
		}
		return nil
	}
	mk := func(parent string) (string, error) {
		dir := filepath.Join(parent, name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", fmt.Errorf("cgroup: %w", err)
		}
		cg.dirs = append(cg.dirs, dir)
		return dir, nil
	}
	fail := func(err error) (*callCgroup, error) { cg.remove(); return nil, err }
	dir, err := mk(h.pids)
	if err != nil {
		return fail(err)
	}
	if err := set(dir, "pids.max", strconv.Itoa(l.Processes)); err != nil {
		return fail(err)
	}
	mem := strconv.FormatInt(l.MemoryBytes, 10)
	switch {
	case h.v2:
		if err := set(dir, "memory.max", mem); err != nil {
			return fail(err)
		}
		_ = set(dir, "memory.swap.max", "0") // absent without swap accounting
	case h.memory != "":
		mdir, err := mk(h.memory)
		if err != nil {
			return fail(err)
		}
		if err := set(mdir, "memory.limit_in_bytes", mem); err != nil {
			return fail(err)
		}
	}
	return cg, nil
}

// limitsMemory tells whether the cgroups bound memory (else RLIMIT_AS does).
func (h *cgroupHost) limitsMemory() bool { return h.v2 || h.memory != "" }

// procFiles are the files a process writes its pid to in order to join the cgroup.
func (c *callCgroup) procFiles() []string {
	out := make([]string, len(c.dirs))
	for i, d := range c.dirs {
		out[i] = filepath.Join(d, "cgroup.procs")
	}
	return out
}

// limitsHit names the limits the call ran into.
func (c *callCgroup) limitsHit(l Limits) []string {
	var hit []string
	if n := eventCount(filepath.Join(c.dirs[0], "pids.events"), "max"); n > 0 {
		hit = append(hit, fmt.Sprintf("processes (%d)", l.Processes))
	}
	memEvents, key := filepath.Join(c.dirs[0], "memory.events"), "oom_kill"
	if !c.host.v2 && len(c.dirs) > 1 {
		memEvents = filepath.Join(c.dirs[1], "memory.oom_control")
	}
	if eventCount(memEvents, key) > 0 {
		hit = append(hit, "memory ("+bytesText(l.MemoryBytes)+")")
	}
	return hit
}

func eventCount(file, key string) int64 {
	data, err := os.ReadFile(file)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == key {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n
		}
	}
	return 0
}

// killAndRemove kills every process left in the cgroup and removes it. The call's PID
// namespace already ends them when its init exits; this is the second line, and what
// frees the cgroup.
func (c *callCgroup) killAndRemove() {
	deadline := time.Now().Add(5 * time.Second)
	for _, dir := range c.dirs {
		if c.host.v2 {
			_ = os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
		}
		for time.Now().Before(deadline) {
			data, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
			pids := strings.Fields(string(data))
			if err != nil || len(pids) == 0 {
				break
			}
			for _, p := range pids {
				if pid, err := strconv.Atoi(p); err == nil && pid > 0 {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	c.remove()
}

func (c *callCgroup) remove() {
	for i := len(c.dirs) - 1; i >= 0; i-- {
		dir := c.dirs[i]
		for try := 0; try < 100; try++ {
			if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
				break
			}
			time.Sleep(5 * time.Millisecond) // exiting processes leave the cgroup a moment later
		}
	}
}

// join moves processes into the call's cgroups. The spine does it, not the processes:
// they run as the sandbox's unprivileged host uid, which may not move itself.
func (c *callCgroup) join(pids ...int) error {
	for _, f := range c.procFiles() {
		for _, pid := range pids {
			if err := os.WriteFile(f, []byte(strconv.Itoa(pid)), 0); err != nil {
				return fmt.Errorf("cgroup: joining %d: %w", pid, err)
			}
		}
	}
	return nil
}
