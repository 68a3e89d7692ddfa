//go:build linux

package sandbox

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"golang.org/x/sys/unix"
)

// The seccomp filter every sandboxed command runs under, loaded by bubblewrap (--seccomp)
// just before it executes the launcher, after its own namespace and mount work is done,
// so nothing bwrap needs is denied. A denied call returns EPERM (the caller sees a plain
// "Operation not permitted"), except where the profiles this follows return another
// errno on purpose. The list and where each entry comes from are in deniedSyscalls; the
// README's sandbox section repeats it.

// deniedSyscall is one system call the filter refuses, and the profile that refuses it:
// docker (moby's default seccomp profile), flatpak (flatpak-run's seccomp rules), codex
// (OpenAI Codex CLI's Linux sandbox), srt (Anthropic's sandbox-runtime).
type deniedSyscall struct {
	name  string
	errno unix.Errno
	why   string
}

var deniedSyscalls = []deniedSyscall{
	// other processes' memory and registers
	{"ptrace", unix.EPERM, "docker, flatpak, codex: inspect or steer another process"},
	{"process_vm_readv", unix.EPERM, "docker: read another process's memory"},
	{"process_vm_writev", unix.EPERM, "docker: write another process's memory"},
	{"kcmp", unix.EPERM, "docker: compare kernel objects of other processes"},
	{"pidfd_getfd", unix.EPERM, "docker: take a descriptor out of another process"},
	// mounts and namespaces: bwrap has made them; nothing inside may change them
	{"mount", unix.EPERM, "docker, flatpak"},
	{"umount2", unix.EPERM, "docker, flatpak"},
	{"pivot_root", unix.EPERM, "docker, flatpak"},
	{"chroot", unix.EPERM, "docker, flatpak"},
	{"open_tree", unix.ENOSYS, "flatpak: the new mount API"},
	{"move_mount", unix.ENOSYS, "flatpak"},
	{"fsopen", unix.ENOSYS, "flatpak"},
	{"fsconfig", unix.ENOSYS, "flatpak"},
	{"fsmount", unix.ENOSYS, "flatpak"},
	{"fspick", unix.ENOSYS, "flatpak"},
	{"mount_setattr", unix.ENOSYS, "flatpak"},
	{"unshare", unix.EPERM, "docker, flatpak: new namespaces"},
	{"setns", unix.EPERM, "docker, flatpak: enter namespaces"},
	// the kernel keyring
	{"keyctl", unix.EPERM, "docker, flatpak"},
	{"add_key", unix.EPERM, "docker, flatpak"},
	{"request_key", unix.EPERM, "docker, flatpak"},
	// large kernel attack surface an agent's command has no use for
	{"bpf", unix.EPERM, "docker: eBPF programs"},
	{"perf_event_open", unix.EPERM, "docker, flatpak: performance counters, a side channel"},
	{"userfaultfd", unix.EPERM, "docker, flatpak: used to widen kernel race windows"},
	{"io_uring_setup", unix.EPERM, "docker (since 2023): io_uring bypasses per-call filters"},
	{"io_uring_enter", unix.EPERM, "docker"},
	{"io_uring_register", unix.EPERM, "docker"},
	{"fanotify_init", unix.EPERM, "docker: file-system wide monitoring"},
	{"open_by_handle_at", unix.EPERM, "docker: the classic container breakout"},
	{"name_to_handle_at", unix.EPERM, "docker"},
	{"lookup_dcookie", unix.EPERM, "docker"},
	// the machine itself: modules, kexec, reboot, clocks, swap, accounting, logs
	{"init_module", unix.EPERM, "docker"},
	{"finit_module", unix.EPERM, "docker"},
	{"delete_module", unix.EPERM, "docker"},
	{"create_module", unix.EPERM, "docker"},
	{"get_kernel_syms", unix.EPERM, "docker"},
	{"query_module", unix.EPERM, "docker"},
	{"kexec_load", unix.EPERM, "docker"},
	{"kexec_file_load", unix.EPERM, "docker"},
	{"reboot", unix.EPERM, "docker"},
	{"settimeofday", unix.EPERM, "docker"},
	{"clock_settime", unix.EPERM, "docker"},
	{"clock_adjtime", unix.EPERM, "docker"},
	{"adjtimex", unix.EPERM, "docker"},
	{"swapon", unix.EPERM, "docker"},
	{"swapoff", unix.EPERM, "docker"},
	{"acct", unix.EPERM, "docker, flatpak"},
	{"syslog", unix.EPERM, "docker, flatpak"},
	{"quotactl", unix.EPERM, "docker, flatpak"},
	{"quotactl_fd", unix.EPERM, "docker"},
	{"nfsservctl", unix.EPERM, "docker"},
	{"vhangup", unix.EPERM, "docker"},
	{"uselib", unix.EPERM, "docker, flatpak"},
	{"ustat", unix.EPERM, "docker"},
	{"sysfs", unix.EPERM, "docker"},
	{"_sysctl", unix.EPERM, "docker"},
	{"iopl", unix.EPERM, "docker: raw I/O ports"},
	{"ioperm", unix.EPERM, "docker"},
	// memory placement other users' processes feel
	{"mbind", unix.EPERM, "docker, flatpak"},
	{"set_mempolicy", unix.EPERM, "docker, flatpak"},
	{"migrate_pages", unix.EPERM, "docker, flatpak"},
	{"move_pages", unix.EPERM, "docker, flatpak"},
}

// Calls the filter inspects by argument rather than denying outright (the README lists
// them with the table above):
//   - clone with any namespace flag: EPERM (docker, flatpak); clone3, whose flags lie
//     behind a pointer a filter cannot read: ENOSYS, so that libc falls back to clone
//     (docker, flatpak);
//   - personality other than the harmless values docker allows (PER_LINUX, UNAME26,
//     PER_LINUX32, the query 0xffffffff): EPERM — no turning address randomisation off;
//   - ioctl TIOCSTI and TIOCLINUX, which push keystrokes into a terminal: EPERM (flatpak);
//   - socket of a family other than unix, inet, inet6 and netlink: EAFNOSUPPORT
//     (flatpak; codex and srt go further and allow only unix sockets when the network
//     is off — here the network namespace already has no route out). AF_VSOCK, which
//     reaches the host of a virtual machine, is among the refused.
//   - any call made through another ABI (the x32 numbers on x86_64): ENOSYS; a foreign
//     architecture (32-bit int 0x80 calls): the process is killed.

const (
	nsCloneFlags = unix.CLONE_NEWNS | unix.CLONE_NEWUTS | unix.CLONE_NEWIPC | unix.CLONE_NEWUSER |
		unix.CLONE_NEWPID | unix.CLONE_NEWNET | unix.CLONE_NEWCGROUP | unix.CLONE_NEWTIME
	x32SyscallBit = 0x40000000
)

var (
	allowedPersonalities  = []uint32{0x0, 0x8, 0x20000, 0x20008, 0xffffffff}
	deniedIoctls          = []uint32{unix.TIOCSTI, unix.TIOCLINUX}
	allowedSocketFamilies = []uint32{unix.AF_UNIX, unix.AF_INET, unix.AF_INET6, unix.AF_NETLINK}
)

// seccompArch is the architecture a filter is built for: its audit identifier and its
// system call numbers.
type seccompArch struct {
	name    string
	audit   uint32
	x32     bool // calls with x32SyscallBit set come from the x32 ABI
	numbers map[string]uint32
}

// offsets into struct seccomp_data (little-endian on both supported architectures; the
// low 32 bits of an argument come first).
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
	offArg1 = 24
)

// The instructions the filter uses: load a word of seccomp_data; jump on equal, greater or
// equal, or any bit set.
const (
	ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
	jset = unix.BPF_JMP | unix.BPF_JSET | unix.BPF_K
)

// bpfProgram assembles classic BPF with forward jumps to labels.
type bpfProgram struct {
	ins    []unix.SockFilter
	labels map[string]int
	fixups []bpfFixup
}

type bpfFixup struct {
	at     int
	jt, jf string // "" = the next instruction
	isJump bool
}

func (p *bpfProgram) stmt(code uint16, k uint32) {
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

// jump adds a conditional jump: to label jt when the test holds, else to jf.
func (p *bpfProgram) jump(code uint16, k uint32, jt, jf string) {
	p.fixups = append(p.fixups, bpfFixup{at: len(p.ins), jt: jt, jf: jf, isJump: true})
	p.ins = append(p.ins, unix.SockFilter{Code: code, K: k})
}

func (p *bpfProgram) label(name string) {
	if p.labels == nil {
		p.labels = map[string]int{}
	}
	p.labels[name] = len(p.ins)
}

func (p *bpfProgram) ret(k uint32) { p.stmt(unix.BPF_RET|unix.BPF_K, k) }

// argIn adds the code at label that loads the argument at off and jumps to onMatch when
// it is one of values; any other value returns otherwise.
func (p *bpfProgram) argIn(label string, off uint32, values []uint32, onMatch string, otherwise uint32) {
	p.label(label)
	p.stmt(ld, off)
	for _, v := range values {
		p.jump(jeq, v, onMatch, "")
	}
	p.ret(otherwise)
}

func (p *bpfProgram) resolve() ([]unix.SockFilter, error) {
	off := func(from int, name string) (uint8, error) {
		if name == "" {
			return 0, nil
		}
		to, ok := p.labels[name]
		if !ok {
			return 0, fmt.Errorf("seccomp: no label %q", name)
		}
		d := to - from - 1
		if d < 0 || d > 255 {
			return 0, fmt.Errorf("seccomp: jump to %q out of range (%d)", name, d)
		}
		return uint8(d), nil
	}
	for _, f := range p.fixups {
		var err error
		if p.ins[f.at].Jt, err = off(f.at, f.jt); err != nil {
			return nil, err
		}
		if p.ins[f.at].Jf, err = off(f.at, f.jf); err != nil {
			return nil, err
		}
	}
	return p.ins, nil
}

func retErrno(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e)&unix.SECCOMP_RET_DATA }

// buildSeccomp compiles the filter for arch.
func buildSeccomp(arch seccompArch) ([]unix.SockFilter, error) {
	var p bpfProgram
	p.stmt(ld, offArch)
	p.jump(jeq, arch.audit, "", "kill")
	p.stmt(ld, offNr)
	if arch.x32 {
		p.jump(jge, x32SyscallBit, "enosys", "")
	}
	// One label per errno used by the plain denials.
	errnos := map[unix.Errno]bool{}
	for _, d := range deniedSyscalls {
		nr, ok := arch.numbers[d.name]
		if !ok {
			continue // the call does not exist on this architecture
		}
		errnos[d.errno] = true
		p.jump(jeq, nr, "errno"+d.errno.Error(), "")
	}
	for _, c := range []struct{ name, label string }{
		{"clone3", "enosys"}, {"clone", "clone"}, {"personality", "personality"},
		{"ioctl", "ioctl"}, {"socket", "socket"},
	} {
		nr, ok := arch.numbers[c.name]
		if !ok {
			return nil, fmt.Errorf("seccomp: %s has no number for %s", arch.name, c.name)
		}
		p.jump(jeq, nr, c.label, "")
	}
	p.ret(unix.SECCOMP_RET_ALLOW)

	p.label("clone")
	p.stmt(ld, offArg0)
	p.jump(jset, nsCloneFlags, "eperm", "allow")

	p.argIn("personality", offArg0, allowedPersonalities, "allow", retErrno(unix.EPERM))
	p.argIn("ioctl", offArg1, deniedIoctls, "eperm", unix.SECCOMP_RET_ALLOW)
	p.argIn("socket", offArg0, allowedSocketFamilies, "allow", retErrno(unix.EAFNOSUPPORT))

	p.label("eperm")
	p.ret(retErrno(unix.EPERM))
	p.label("enosys")
	p.ret(retErrno(unix.ENOSYS))
	for _, e := range []unix.Errno{unix.EPERM, unix.ENOSYS} {
		if errnos[e] {
			p.label("errno" + e.Error())
			p.ret(retErrno(e))
		}
	}
	p.label("allow")
	p.ret(unix.SECCOMP_RET_ALLOW)
	p.label("kill")
	p.ret(unix.SECCOMP_RET_KILL_PROCESS)
	return p.resolve()
}

// seccompBytes is the filter as bwrap reads it from --seccomp: the sock_filter array in
// the machine's byte order.
func seccompBytes(prog []unix.SockFilter) []byte {
	var b bytes.Buffer
	for _, in := range prog {
		_ = binary.Write(&b, binary.NativeEndian, in)
	}
	return b.Bytes()
}
