//go:build linux

package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentspine/spine/effectors/sandbox/launch"
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
	cg      *cgroupHost // nil: no cgroup; then RLIMIT_NPROC bounds processes
	relays  relayPlan
	where   netResolver // where a relayed name leads, checked at each connection
	base    []string    // bwrap arguments shared by every call

	noUserns bool // bwrap can forbid new user namespaces inside (--disable-userns)
	tmpSize  bool // bwrap can bound a tmpfs (--size)

	host    hostIdentity
	exe     *os.File // the launcher: this executable, run inside from its descriptor
	seccomp []byte   // the compiled filter; nil on an architecture without a table
	walls   walls    // what the probe found inside
}

// hostIdentity is the host uid and gid commands run as. When the spine runs as root it
// is a dedicated unprivileged pair (65534 unless configured), so that the sandbox's user
// namespace maps to no host privilege at all; otherwise it is the caller's own, which is
// all an unprivileged user namespace can map.
type hostIdentity struct {
	drop     bool // run bwrap as uid/gid rather than as this process
	uid, gid int
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

// sandboxUID is the unprivileged uid and gid commands run as inside the sandbox, and
// defaultHostID the host uid and gid they run as when the spine is root.
const (
	sandboxUID    = "65534"
	defaultHostID = 65534
)

// NewBubblewrap checks that this machine can run the sandbox — bwrap installed, user
// namespaces allowed — and then runs a self-check inside it: the host uid, no_new_privs,
// capabilities, the seccomp filter, /proc/sys, the work dir's mount flags and Landlock.
// The error is an *UnavailableError saying which wall is missing.
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
	b := &Bubblewrap{opts: opts, relays: planRelays(opts.AllowNet), where: netResolver{check: opts.CheckAddr}}
	if b.host, err = chooseHost(opts.HostUID, opts.HostGID, os.Geteuid(), os.Getegid()); err != nil {
		return nil, err
	}
	b.path = opts.Path
	if b.path == "" {
		if b.path, err = exec.LookPath("bwrap"); err != nil {
			return nil, &UnavailableError{Missing: []string{"bubblewrap (bwrap) is not installed"},
				Fix: "install it: apt-get install bubblewrap, dnf install bubblewrap, pacman -S bubblewrap"}
		}
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
	if len(opts.AllowNet) > 0 && os.Geteuid() != 0 {
		missing = append(missing, "--allow-net needs root: the relay opens its listeners inside the sandbox's network namespace")
	}
	if len(missing) > 0 {
		return nil, &UnavailableError{Missing: missing,
			Fix: "run as root for --allow-net; or pass --no-sandbox to run tools unconfined"}
	}
	if nativeSeccompArch != nil {
		prog, err := buildSeccomp(*nativeSeccompArch)
		if err != nil {
			return nil, err
		}
		b.seccomp = seccompBytes(prog)
	}
	if cg, err := findCgroups(); err == nil {
		b.cg = cg
	}
	exe, err := os.Executable()
	if err == nil {
		b.exe, err = os.Open(exe)
	}
	if err != nil {
		return nil, &UnavailableError{Missing: []string{"the launcher: this program's executable cannot be opened: " + err.Error()}}
	}
	b.base = b.baseArgs()
	if b.host.drop {
		if err := ensureStageBase(); err != nil {
			b.exe.Close()
			return nil, &UnavailableError{Missing: []string{"a staging directory for the sandbox's binds: " + err.Error()}}
		}
	}
	if err := b.probe(); err != nil {
		b.exe.Close()
		return nil, err
	}
	return b, nil
}

// chooseHost picks the host identity for a caller with effective ids euid and egid.
func chooseHost(uid, gid, euid, egid int) (hostIdentity, error) {
	if uid < 0 || gid < 0 {
		return hostIdentity{}, errors.New("sandbox: the host uid and gid must not be negative")
	}
	if euid != 0 {
		if uid != 0 && uid != euid || gid != 0 && gid != egid {
			return hostIdentity{}, fmt.Errorf("sandbox: a host uid/gid (%d/%d) can be chosen only when running as root", uid, gid)
		}
		return hostIdentity{uid: euid, gid: egid}, nil
	}
	if uid == 0 {
		uid = defaultHostID
	}
	if gid == 0 {
		gid = defaultHostID
	}
	return hostIdentity{drop: true, uid: uid, gid: gid}, nil
}

// probe runs the self-check and records what it found; a missing required wall is an
// *UnavailableError naming it.
func (b *Bubblewrap) probe() error {
	dir, err := os.MkdirTemp("", "spine-sandbox-probe-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if b.host.drop {
		if err := os.Chown(dir, b.host.uid, b.host.gid); err != nil {
			return err
		}
	}
	var out bytes.Buffer
	if _, err := b.run(context.Background(), Process{Script: probeScript, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}, Out: &out}, true); err != nil {
		return &UnavailableError{Missing: []string{fmt.Sprintf("the kernel refused the sandbox (%v): %s",
			err, strings.TrimSpace(out.String()))},
			Fix: "user namespaces must be open to unprivileged users (sysctl user.max_user_namespaces > 0, kernel.unprivileged_userns_clone=1, no AppArmor restriction on bwrap); or pass --no-sandbox"}
	}
	b.walls = readWalls(out.String(), dir)
	// The host uid is read on the host, from the owner of a file the probe made: the
	// sandbox's own uid_map is relative to bwrap's intermediate namespace.
	b.walls.outsideUID = -1
	if fi, err := os.Lstat(filepath.Join(dir, probeOwnerFile)); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			b.walls.outsideUID = int(st.Uid)
		}
	}
	if missing := b.walls.missingRequired(b.host, b.seccomp != nil); len(missing) > 0 {
		return &UnavailableError{Missing: missing, Fix: "the sandbox would hold more than it must; pass --no-sandbox to run tools unconfined, knowingly"}
	}
	return nil
}

// baseArgs are the namespace, identity and file-system arguments every call shares.
func (b *Bubblewrap) baseArgs() []string {
	a := []string{
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session",
		"--uid", sandboxUID, "--gid", sandboxUID, "--hostname", "sandbox", "--cap-drop", "ALL",
		// /proc and its masks first: bwrap reads the mount table again for every bind,
		// so a bind made while the table is short costs less.
		"--proc", "/proc",
	}
	a = append(a, procMasks()...)
	a = append(a, "--ro-bind", "/usr", "/usr")
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
	a = append(a, "--dev", "/dev")
	if b.tmpSize {
		a = append(a, "--size", strconv.FormatInt(b.opts.Limits.TmpBytes, 10))
	}
	return append(a, "--tmpfs", "/tmp", "--dir", "/var", "--symlink", "../tmp", "/var/tmp")
}

// Parts of /proc a command has no business writing or reading: the kernel's settings,
// its keyrings, memory and debugging views (the lists of Docker's masked and read-only
// paths). Kernel settings stay readable, as programs read them (overcommit, ngroups).
var (
	procReadOnly   = []string{"/proc/sys", "/proc/bus", "/proc/fs", "/proc/irq"}
	procHiddenFile = []string{"/proc/sysrq-trigger", "/proc/keys", "/proc/key-users", "/proc/kcore", "/proc/kmsg",
		"/proc/timer_list", "/proc/timer_stats", "/proc/sched_debug", "/proc/latency_stats", "/proc/kallsyms",
		"/proc/config.gz", "/proc/kpagecount", "/proc/kpageflags", "/proc/kpagecgroup", "/proc/pagetypeinfo"}
	procHiddenDir = []string{"/proc/acpi", "/proc/asound", "/proc/scsi", "/proc/firmware", "/proc/driver"}
)

// procMasks are the bwrap arguments that apply them, for the entries this kernel has.
func procMasks() []string {
	var a []string
	for _, p := range procReadOnly {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			a = append(a, "--ro-bind", p, p)
		}
	}
	for _, p := range procHiddenFile {
		if _, err := os.Lstat(p); err == nil {
			a = append(a, "--ro-bind", "/dev/null", p)
		}
	}
	for _, p := range procHiddenDir {
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			a = append(a, "--perms", "0555", "--tmpfs", p)
		}
	}
	return a
}

// callFiles are the descriptors one call hands bwrap, numbered from 3 as ExtraFiles.
type callFiles struct {
	files []*os.File
	own   []*os.File // closed by the parent once the child has them
}

func (c *callFiles) add(f *os.File, own bool) int {
	c.files = append(c.files, f)
	if own {
		c.own = append(c.own, f)
	}
	return 2 + len(c.files)
}

func (c *callFiles) closeOwn() {
	for _, f := range c.own {
		f.Close()
	}
	c.own = nil
}

// dataPipe is a pipe holding data, its write end closed: bwrap reads it to the end. The
// data is far below a pipe's buffer, so the write does not block.
func dataPipe(data []byte) (*os.File, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	_, err = w.Write(data)
	w.Close()
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// hostOwner implements hostOwned: the host uid and gid commands run as, and whether
// they differ from the spine's.
func (b *Bubblewrap) hostOwner() (uid, gid int, drop bool) {
	return b.host.uid, b.host.gid, b.host.drop
}

// Run implements Jail.
func (b *Bubblewrap) Run(ctx context.Context, p Process) (RunReport, error) {
	return b.run(ctx, p, false)
}

// run runs one call; probe makes the launcher report what it applied.
func (b *Bubblewrap) run(ctx context.Context, p Process, probe bool) (RunReport, error) {
	l, err := b.launch(ctx, launchSpec{argv: []string{"/bin/sh", "-c", p.Script}, dir: p.Dir, env: p.Env,
		stdout: p.Out, stderr: p.Out, relays: b.relays, readOnly: b.opts.ReadOnly}, probe)
	if err != nil {
		return RunReport{}, err
	}
	return l.wait(p.Out)
}

// launchSpec is what one bwrap runs and what it is shown: a shell call's sh -c, or a
// long-lived program (Start).
type launchSpec struct {
	argv           []string // argv[0] absolute
	dir            string
	env            []string
	stdin          io.Reader // nil: /dev/null
	stdout, stderr io.Writer
	relays         relayPlan
	readOnly       []string
}

// launched is a bwrap started and released to run its command; wait ends it.
type launched struct {
	b       *Bubblewrap
	cmd     *exec.Cmd
	cg      *callCgroup
	rl      *relay
	initFD  int
	initErr error
	undo    []func() // run in reverse order once the command has been waited for
}

func (l *launched) cleanup() {
	for i := len(l.undo) - 1; i >= 0; i-- {
		l.undo[i]()
	}
	l.undo = nil
}

// launch starts bwrap for s from a staging thread, waits for it to report its child,
// joins the cgroup, opens the relay and releases the command.
func (b *Bubblewrap) launch(ctx context.Context, s launchSpec, probe bool) (_ *launched, err error) {
	l := &launched{b: b, initErr: errors.New("no init yet")}
	defer func() {
		if err != nil {
			l.cleanup()
		}
	}()
	if b.cg != nil {
		if l.cg, err = b.cg.create(b.opts.Limits); err != nil {
			return nil, err
		}
		l.undo = append(l.undo, l.cg.killAndRemove)
	}
	var cf callFiles
	l.undo = append(l.undo, cf.closeOwn)
	hosts, err := dataPipe([]byte(s.relays.etcHosts()))
	if err != nil {
		return nil, err
	}
	infoR, infoW, err := os.Pipe()
	if err != nil {
		hosts.Close()
		return nil, err
	}
	l.undo = append(l.undo, func() { infoR.Close() })
	blockR, blockW, err := os.Pipe()
	if err != nil {
		hosts.Close()
		infoW.Close()
		return nil, err
	}
	l.undo = append(l.undo, func() { blockW.Close() })
	a := slices.Clone(b.base)
	a = append(a, "--ro-bind-data", strconv.Itoa(cf.add(hosts, true)), "/etc/hosts")
	infoFD, blockFD := cf.add(infoW, true), cf.add(blockR, true)
	exeFD := cf.add(b.exe, false)
	if b.seccomp != nil {
		sf, err := dataPipe(b.seccomp)
		if err != nil {
			return nil, err
		}
		a = append(a, "--seccomp", strconv.Itoa(cf.add(sf, true)))
	}
	// A host uid that is not root may be unable to reach a bind source's parents: the
	// sources are then staged (stage_linux.go) and bwrap is shown the staged paths.
	var staged []stageSource
	source := func(p string, ro bool) string {
		if !b.host.drop {
			return p
		}
		staged = append(staged, stageSource{path: p, ro: ro})
		return stagedPath(len(staged) - 1)
	}
	for _, ro := range s.readOnly {
		if _, err := os.Stat(ro); err != nil {
			continue // as --ro-bind-try: an absent path is not shown
		}
		a = append(a, "--ro-bind", source(ro, true), ro)
	}
	a = append(a, "--bind", source(s.dir, false), s.dir)
	// Hidden paths are masked last, so they win over any mount that would show them.
	for _, h := range b.opts.Hidden {
		if !b.visible(h, s.dir, s.readOnly) {
			continue
		}
		if fi, err := os.Stat(h); err == nil && fi.IsDir() {
			a = append(a, "--tmpfs", h)
		} else if err == nil {
			a = append(a, "--ro-bind", "/dev/null", h)
		}
	}
	a = append(a, "--info-fd", strconv.Itoa(infoFD), "--block-fd", strconv.Itoa(blockFD), "--chdir", s.dir, "--")
	withAS := b.cg == nil || !b.cg.limitsMemory()
	a = append(a, launch.Argv("/proc/self/fd/"+strconv.Itoa(exeFD), b.opts.Limits.launchLimits(withAS), probe, s.argv...)...)

	cmd := exec.CommandContext(ctx, b.path, a...)
	// bwrap's --chdir sets the command's directory; the host uid may not be able to
	// reach the work dir's parents, so bwrap itself starts in /.
	cmd.Dir, cmd.Env = "/", s.env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.stdin, s.stdout, s.stderr
	cmd.ExtraFiles = cf.files
	cmd.WaitDelay = waitDelay
	inOwnProcessGroup(cmd)
	if b.host.drop {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(b.host.uid), Gid: uint32(b.host.gid), Groups: []uint32{}}
	}
	end, err := startStaged(cmd, staged)
	if err != nil {
		return nil, err
	}
	l.cmd = cmd
	l.undo = append(l.undo, end) // after every Wait: the starting thread is bwrap's parent
	cf.closeOwn()
	// bwrap reports its child and waits on the block descriptor before anything of the
	// command runs: the call's cgroup and the relay's listeners are set up meanwhile.
	fail := func(err error) error {
		_ = cmd.Cancel()
		if werr := cmd.Wait(); werr != nil {
			return fmt.Errorf("%w (%v)", werr, err)
		}
		return err
	}
	child, err := readChildPID(infoR)
	if err != nil {
		if werr := cmd.Wait(); werr != nil {
			return nil, werr // bwrap failed before it started anything; its message is in stderr
		}
		return nil, err
	}
	// bwrap returns the command's status as soon as the command ends, while the
	// sandbox's init may still be killing what the command left behind; without a cgroup
	// nothing else waits for that. A pidfd of the init, taken while it waits on the block
	// descriptor (so the pid is still its own), lets the call end only once it is gone.
	l.initFD, l.initErr = unix.PidfdOpen(child, 0)
	if l.initErr == nil {
		fd := l.initFD
		l.undo = append(l.undo, func() { unix.Close(fd) })
	}
	if l.cg != nil {
		if err := l.cg.join(cmd.Process.Pid, child); err != nil {
			return nil, fail(err)
		}
	}
	if len(s.relays.routes) > 0 {
		if l.rl, err = startRelay(child, s.relays, b.where); err != nil {
			return nil, fail(fmt.Errorf("sandbox network relay: %w", err))
		}
		l.undo = append(l.undo, l.rl.stop)
	}
	if _, err := blockW.Write([]byte{'1'}); err != nil {
		return nil, fail(err)
	}
	return l, nil
}

// wait waits for the command, kills what it left behind and releases the call's
// resources; the relay's refusals are written to out.
func (l *launched) wait(out io.Writer) (RunReport, error) {
	defer l.cleanup()
	runErr := l.cmd.Wait()
	killGroup(l.cmd)
	if l.initErr == nil {
		endNamespace(l.initFD)
	}
	if l.rl != nil && out != nil {
		// The command's output is complete once Wait returns: the relay's word goes last.
		for _, why := range l.rl.refusals() {
			fmt.Fprintf(out, "[sandbox: a connection was refused: %s]\n", why)
		}
	}
	var rep RunReport
	if l.cg != nil {
		rep.Limits = l.cg.limitsHit(l.b.opts.Limits)
	}
	return rep, runErr
}

// namespaceGrace bounds the wait for a sandbox's init to finish killing its namespace.
const namespaceGrace = 5 * time.Second

// endNamespace kills the sandbox's init, whose death kills every process of its PID
// namespace, and waits until it has died: the kernel signals the pidfd only after the
// namespace's other processes are gone.
func endNamespace(pidfd int) {
	_ = unix.PidfdSendSignal(pidfd, unix.SIGKILL, nil, 0)
	fds := []unix.PollFd{{Fd: int32(pidfd), Events: unix.POLLIN}}
	deadline := time.Now().Add(namespaceGrace)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return
		}
		n, err := unix.Poll(fds, int(left.Milliseconds())+1)
		if n > 0 || err != nil && err != unix.EINTR {
			return
		}
	}
}

// readChildPID reads bwrap's report of the sandbox's init pid.
func readChildPID(info *os.File) (int, error) {
	var doc struct {
		ChildPID int `json:"child-pid"`
	}
	if err := info.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		return 0, err
	}
	if err := json.NewDecoder(info).Decode(&doc); err != nil {
		return 0, fmt.Errorf("reading bwrap's info: %w", err)
	}
	if doc.ChildPID <= 0 {
		return 0, errors.New("bwrap reported no child pid")
	}
	return doc.ChildPID, nil
}

// visible tells whether host path p lies under something the sandbox shows.
func (b *Bubblewrap) visible(p, dir string, readOnly []string) bool {
	under := func(root string) bool { return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/") }
	if under(dir) || under("/usr") {
		return true
	}
	for _, e := range etcAllowed {
		if under("/etc/" + e) {
			return true
		}
	}
	for _, r := range readOnly {
		if under(r) {
			return true
		}
	}
	return false
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
	host := "the caller's own uid " + strconv.Itoa(b.host.uid)
	if b.host.drop {
		host = fmt.Sprintf("uid/gid %d/%d, not root", b.host.uid, b.host.gid)
	}
	iso := Isolation{Mechanism: b.version, Isolated: []string{
		"namespaces: user, pid, mount, ipc, uts, cgroup, network",
		"identity: uid/gid " + sandboxUID + " inside; on the host " + host,
		"privileges: no_new_privs, no capabilities (effective, permitted, bounding, ambient), setuid files do not elevate (nosuid)",
		"writable: the work dir (nosuid, nodev) and a private /tmp only",
		"readable: /usr, /bin, /lib*, a short list of /etc entries" + readOnlyNote(b.opts.ReadOnly),
		"invisible: home directories, the host's /proc, /sys, devices, the spine's configuration, traces and memory",
		"kernel settings: /proc/sys and friends read-only; /proc/keys, /proc/sysrq-trigger, /proc/kcore and friends hidden",
		"descriptors: only stdin, stdout and stderr reach the command",
		"process tree: killed when the call ends",
	}}
	if b.seccomp != nil {
		iso.Isolated = append(iso.Isolated, fmt.Sprintf("seccomp: %d system calls denied, clone with namespace flags, personality, TIOCSTI/TIOCLINUX and exotic socket families refused (%s)",
			len(deniedSyscalls), nativeSeccompArch.name))
	}
	if b.walls.landlockABI > 0 {
		iso.Isolated = append(iso.Isolated, fmt.Sprintf("landlock (ABI %d): writes only beneath the work dir and /tmp, for the shell and the file tools", b.walls.landlockABI))
	}
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
	if b.seccomp == nil {
		iso.Missing = append(iso.Missing, "a seccomp filter (no system call table for this architecture)")
	}
	if b.walls.landlockABI == 0 {
		iso.Missing = append(iso.Missing, "Landlock, the second wall ("+b.walls.landlock+")")
	}
	return iso
}

func readOnlyNote(ro []string) string {
	if len(ro) == 0 {
		return ""
	}
	return ", and " + strings.Join(ro, ", ")
}
