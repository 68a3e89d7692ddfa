//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bubblewrap runs each shell call in its own bubblewrap sandbox: new user, PID, mount,
// IPC, UTS, cgroup and network namespaces; the system directories read-only, the work dir
// the only writable place besides a private /tmp; no home directory, no host /proc, no
// devices but the harmless ones; every capability dropped and an unprivileged uid; limits
// from rlimits and a cgroup; and the whole process tree killed when the call ends.
//
// Why bubblewrap: it is the small setuid-free tool Flatpak and other agent sandboxes
// already trust to build such a view with the kernel's namespaces, it is packaged by
// every distribution, and a view built from an allow list hides what a deny list (as
// with Landlock rules over the real tree) would have to enumerate: files the spine does
// not know are secret are not there at all.
type Bubblewrap struct {
	path    string
	version string
	opts    BubblewrapOptions
	cg      *cgroupHost // nil: no cgroup; then RLIMIT_NPROC bounds processes (non-root only)
	prlimit string
	relays  relayPlan
	base    []string // bwrap arguments shared by every call

	noUserns bool // bwrap can forbid new user namespaces inside (--disable-userns)
	tmpSize  bool // bwrap can bound a tmpfs (--size)
}

var _ Jail = (*Bubblewrap)(nil)

// etcAllowed are the entries of /etc a shell and common tools need; nothing else of /etc
// is visible (no shadow, no ssh host keys, no machine credentials).
var etcAllowed = []string{
	"alternatives", "bash.bashrc", "ca-certificates", "ca-certificates.conf", "debian_version",
	"gai.conf", "group", "host.conf", "inputrc", "ld.so.cache", "ld.so.conf", "ld.so.conf.d",
	"locale.alias", "localtime", "magic", "magic.mime", "mime.types", "nsswitch.conf",
	"os-release", "passwd", "perl", "profile", "protocols", "python3", "services", "ssl/certs",
	"ssl/openssl.cnf", "timezone",
}

// systemDirs are shown read-only when they are directories, or recreated as the same
// symlinks when they are links (a merged /usr).
var systemDirs = []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

// sandboxUID is the unprivileged uid and gid commands run as inside the sandbox.
const sandboxUID = "65534"

// NewBubblewrap checks that this machine can run the sandbox — bwrap installed, user
// namespaces allowed, a way to bound processes — by running one empty command in it. The
// error is an *UnavailableError saying what is missing.
func NewBubblewrap(opts BubblewrapOptions) (*Bubblewrap, error) {
	lim, err := opts.Limits.withDefaults()
	if err != nil {
		return nil, err
	}
	opts.Limits = lim
	for _, p := range append(slices.Clone(opts.ReadOnly), opts.Hidden...) {
		if !filepath.IsAbs(p) {
			return nil, fmt.Errorf("sandbox: path %q must be absolute", p)
		}
	}
	b := &Bubblewrap{opts: opts, relays: planRelays(opts.AllowNet)}
	b.path = opts.Path
	if b.path == "" {
		if b.path, err = exec.LookPath("bwrap"); err != nil {
			return nil, &UnavailableError{Missing: []string{"bubblewrap (bwrap) is not installed"},
				Fix: "install it: apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap"}
		}
	}
	if b.prlimit, err = exec.LookPath("prlimit"); err != nil {
		return nil, &UnavailableError{Missing: []string{"prlimit (util-linux) is not installed"}, Fix: "install util-linux"}
	}
	out, err := exec.Command(b.path, "--version").Output()
	if err != nil {
		return nil, &UnavailableError{Missing: []string{fmt.Sprintf("%s --version failed: %v", b.path, err)}}
	}
	b.version = strings.TrimSpace(string(out))
	// Older bubblewraps lack some options; the sandbox uses them where they exist and
	// says what is missing where they do not.
	help, _ := exec.Command(b.path, "--help").CombinedOutput()
	b.noUserns = bytes.Contains(help, []byte("--disable-userns"))
	b.tmpSize = bytes.Contains(help, []byte("--size"))
	var missing []string
	cg, cgErr := findCgroups()
	if cgErr == nil {
		b.cg = cg
	} else if os.Geteuid() == 0 {
		// The kernel exempts uid 0 from RLIMIT_NPROC, and a root caller's sandbox uid is
		// uid 0 outside: without a cgroup nothing bounds a fork bomb.
		missing = append(missing, "a process limit: running as root, and no cgroup can be created ("+cgErr.Error()+")")
	}
	if len(opts.AllowNet) > 0 && os.Geteuid() != 0 {
		missing = append(missing, "--allow-net needs root: the relay opens its listeners inside the sandbox's network namespace")
	}
	if len(missing) > 0 {
		return nil, &UnavailableError{Missing: missing,
			Fix: "run as a non-root user, or give the spine a writable cgroup; or pass --no-sandbox to run tools unconfined"}
	}
	b.base = b.baseArgs()
	var probe bytes.Buffer
	dir, err := os.MkdirTemp("", "spine-sandbox-probe-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if _, err := b.Run(context.Background(), Process{Script: "exit 0", Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Out: &probe}); err != nil {
		return nil, &UnavailableError{Missing: []string{fmt.Sprintf("the kernel refused the sandbox (%v): %s",
			err, strings.TrimSpace(probe.String()))},
			Fix: "user namespaces must be enabled (sysctl kernel.unprivileged_userns_clone=1, or run with CAP_SYS_ADMIN); or pass --no-sandbox"}
	}
	return b, nil
}

// baseArgs are the namespace, identity and file-system arguments every call shares.
func (b *Bubblewrap) baseArgs() []string {
	a := []string{
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session",
		"--uid", sandboxUID, "--gid", sandboxUID, "--hostname", "sandbox", "--cap-drop", "ALL",
		"--ro-bind", "/usr", "/usr",
	}
	if b.noUserns {
		a = append(a, "--disable-userns")
	}
	for _, d := range systemDirs {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
		case fi.Mode()&fs.ModeSymlink != 0:
			if target, err := os.Readlink(d); err == nil {
				a = append(a, "--symlink", target, d)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", d, d)
		}
	}
	for _, e := range etcAllowed {
		a = append(a, "--ro-bind-try", "/etc/"+e, "/etc/"+e)
	}
	for _, p := range b.opts.ReadOnly {
		a = append(a, "--ro-bind-try", p, p)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev")
	if b.tmpSize {
		a = append(a, "--size", strconv.FormatInt(b.opts.Limits.TmpBytes, 10))
	}
	return append(a, "--tmpfs", "/tmp", "--dir", "/var", "--symlink", "../tmp", "/var/tmp")
}

// callArgs completes the arguments for one call in dir. hostsFD is the descriptor the
// sandbox's /etc/hosts is read from.
func (b *Bubblewrap) callArgs(dir string, hostsFD int, infoFD, blockFD int) []string {
	a := slices.Clone(b.base)
	a = append(a, "--ro-bind-data", strconv.Itoa(hostsFD), "/etc/hosts", "--bind", dir, dir)
	// Hidden paths are masked last, so they win over any mount that would show them.
	for _, h := range b.opts.Hidden {
		if !b.visible(h, dir) {
			continue
		}
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", h)
		} else if err == nil {
			a = append(a, "--ro-bind", "/dev/null", h)
		}
	}
	if infoFD >= 0 {
		a = append(a, "--info-fd", strconv.Itoa(infoFD), "--block-fd", strconv.Itoa(blockFD))
	}
	a = append(a, "--chdir", dir, "--")
	a = append(a, b.opts.Limits.prlimitArgs(b.prlimit, b.cg == nil || !b.cg.limitsMemory())...)
	return append(a, "/bin/sh", "-c")
}

// visible tells whether host path p lies under something the sandbox shows.
func (b *Bubblewrap) visible(p, dir string) bool {
	under := func(root string) bool { return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") }
	if under(dir) || under("/usr") {
		return true
	}
	for _, e := range etcAllowed {
		if under("/etc/" + e) {
			return true
		}
	}
	for _, r := range b.opts.ReadOnly {
		if under(r) {
			return true
		}
	}
	return false
}

// Run implements Jail.
func (b *Bubblewrap) Run(ctx context.Context, p Process) (RunReport, error) {
	var cg *callCgroup
	if b.cg != nil {
		var err error
		if cg, err = b.cg.create(b.opts.Limits); err != nil {
			return RunReport{}, err
		}
		defer cg.killAndRemove()
	}
	hostsR, hostsW, err := os.Pipe()
	if err != nil {
		return RunReport{}, err
	}
	defer hostsR.Close()
	// The file is small, far below a pipe's buffer, so this write does not block.
	_, err = hostsW.WriteString(b.relays.etcHosts())
	hostsW.Close()
	if err != nil {
		return RunReport{}, err
	}
	extra := []*os.File{hostsR}
	infoFD, blockFD := -1, -1
	var infoR, infoW, blockR, blockW *os.File
	if len(b.relays.routes) > 0 {
		if infoR, infoW, err = os.Pipe(); err != nil {
			return RunReport{}, err
		}
		defer infoR.Close()
		if blockR, blockW, err = os.Pipe(); err != nil {
			infoW.Close()
			return RunReport{}, err
		}
		defer blockW.Close()
		extra = append(extra, infoW, blockR)
		infoFD, blockFD = 4, 5
	}
	argv := append(b.callArgs(p.Dir, 3, infoFD, blockFD), p.Script)
	if cg != nil {
		// A launcher joins the call's cgroup and then becomes bwrap, so that every
		// process of the call is in the cgroup from its first instruction.
		launch := `n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"`
		files := cg.procFiles()
		head := append([]string{"/bin/sh", "-c", launch, "spine-launch", strconv.Itoa(len(files))}, files...)
		argv = append(append(head, b.path), argv...)
	} else {
		argv = append([]string{b.path}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = p.Dir, p.Env
	cmd.Stdout, cmd.Stderr = p.Out, p.Out
	cmd.ExtraFiles = extra
	cmd.WaitDelay = waitDelay
	inOwnProcessGroup(cmd)
	if err := cmd.Start(); err != nil {
		if infoW != nil {
			infoW.Close()
			blockR.Close()
		}
		return RunReport{}, err
	}
	if infoW != nil {
		infoW.Close()
		blockR.Close()
		rl, err := b.openRelays(infoR)
		if err != nil {
			_ = cmd.Cancel()
			_ = cmd.Wait()
			return RunReport{}, fmt.Errorf("sandbox network relay: %w", err)
		}
		defer rl.stop()
		if _, err := blockW.Write([]byte{'1'}); err != nil {
			_ = cmd.Cancel()
			_ = cmd.Wait()
			return RunReport{}, err
		}
	}
	runErr := cmd.Wait()
	killGroup(cmd)
	var rep RunReport
	if cg != nil {
		rep.Limits = cg.limitsHit(b.opts.Limits)
	}
	return rep, runErr
}

// openRelays reads bwrap's report of the sandbox's init pid and opens the relay's
// listeners in its network namespace, while bwrap waits on the block descriptor.
func (b *Bubblewrap) openRelays(info *os.File) (*relay, error) {
	type infoDoc struct {
		ChildPID int `json:"child-pid"`
	}
	done := make(chan error, 1)
	var doc infoDoc
	go func() { done <- json.NewDecoder(info).Decode(&doc) }()
	select {
	case err := <-done:
		if err != nil {
			return nil, fmt.Errorf("reading bwrap's info: %w", err)
		}
	case <-time.After(10 * time.Second):
		return nil, errors.New("bwrap did not report its child in 10s")
	}
	if doc.ChildPID <= 0 {
		return nil, errors.New("bwrap reported no child pid")
	}
	return startRelay(doc.ChildPID, b.relays)
}

// Describe implements Jail.
func (b *Bubblewrap) Describe() Isolation {
	procsBy, memBy := "RLIMIT_NPROC", "RLIMIT_AS per process"
	if b.cg != nil {
		procsBy = "cgroup pids.max"
		if b.cg.limitsMemory() {
			memBy = "cgroup, the whole call"
		}
	}
	iso := Isolation{Mechanism: b.version, Isolated: []string{
		"namespaces: user, pid, mount, ipc, uts, cgroup, network",
		"identity: uid/gid " + sandboxUID + ", no capabilities",
		"writable: the work dir and a private /tmp only",
		"readable: /usr, /bin, /lib*, a short list of /etc entries" + readOnlyNote(b.opts.ReadOnly),
		"invisible: home directories, the host's /proc, /sys, devices, the spine's configuration, traces and memory",
		"process tree: killed when the call ends",
	}}
	iso.Isolated = append(iso.Isolated, b.opts.Limits.describe(procsBy, memBy)...)
	if len(b.opts.AllowNet) == 0 {
		iso.Isolated = append(iso.Isolated, "network: off (loopback of its own only)")
	} else {
		for _, r := range b.opts.AllowNet {
			iso.AllowNet = append(iso.AllowNet, r.String())
		}
		iso.Isolated = append(iso.Isolated, "network: only "+strings.Join(iso.AllowNet, ", ")+", through a relay")
	}
	iso.Missing = []string{"disk use in the work dir is bounded per file, not in total"}
	if !b.noUserns {
		iso.Missing = append(iso.Missing, "new user namespaces inside (this bubblewrap has no --disable-userns)")
	}
	if !b.tmpSize {
		iso.Missing = append(iso.Missing, "a size bound on /tmp (this bubblewrap has no --size)")
	}
	return iso
}

func readOnlyNote(ro []string) string {
	if len(ro) == 0 {
		return ""
	}
	return ", and " + strings.Join(ro, ", ")
}
