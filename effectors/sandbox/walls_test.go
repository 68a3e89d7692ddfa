//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestInheritedDescriptorsDoNotCross leaves descriptors open without close-on-exec in
// this process, as a parent that ran `spine run … 37<secret 38>>target` would, and checks
// that the command sees only 0, 1 and 2.
func TestInheritedDescriptorsDoNotCross(t *testing.T) {
	jail := requireBubblewrap(t, BubblewrapOptions{})
	dir := t.TempDir()
	secretPath, targetPath := filepath.Join(dir, "secret"), filepath.Join(dir, "target")
	if err := os.WriteFile(secretPath, []byte(canary), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(targetPath, []byte("untouched\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for fd, open := range map[int]func() (*os.File, error){
		37: func() (*os.File, error) { return os.Open(secretPath) },
		38: func() (*os.File, error) { return os.OpenFile(targetPath, os.O_WRONLY|os.O_APPEND, 0) },
	} {
		f, err := open()
		if err != nil {
			t.Fatal(err)
		}
		if err := unix.Dup2(int(f.Fd()), fd); err != nil { // Dup2 leaves close-on-exec off
			t.Fatal(err)
		}
		f.Close()
		defer unix.Close(fd)
	}
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := New(work, Options{Jail: jail, skipWordCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res, err := sb.Shell(context.Background(), "ls /proc/self/fd; bash -c 'cat <&37; echo x >&38'; echo end", 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(res.Output)
	if strings.Contains(res.Output, canary) {
		t.Errorf("the command read descriptor 37:\n%s", res.Output)
	}
	// ls lists 0, 1, 2 and its own descriptor for /proc/self/fd, 3; nothing else.
	if !strings.HasPrefix(res.Output, "0\n1\n2\n3\nbash") {
		t.Errorf("descriptors beyond 0-2 crossed:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "Bad file descriptor") || !strings.Contains(res.Output, "end") {
		t.Errorf("want bash to find 37 and 38 closed:\n%s", res.Output)
	}
	if b, _ := os.ReadFile(targetPath); string(b) != "untouched\n" {
		t.Errorf("descriptor 38 was written: %q", b)
	}
}

// TestHandBackClearsSetuid plants a setuid file as the sandbox's host uid and checks that
// Close gives the work dir back to the caller with the bits cleared.
func TestHandBackClearsSetuid(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("the hand-over happens only when the spine runs as root")
	}
	jail := requireBubblewrap(t, BubblewrapOptions{})
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "mine.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := New(work, Options{Jail: jail, skipWordCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sb.Shell(ctx, "cp /bin/true suid && chmod 4755 suid && echo more >> mine.txt && mkdir d && ls -ln", 0)
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("%v: %s", err, res.Output)
	}
	if _, err := sb.WriteFile(ctx, "d/e/new.txt", "hi"); err != nil {
		t.Fatal(err)
	}
	if res, _ := sb.Shell(ctx, "echo again >> d/e/new.txt", 0); res.ExitCode != 0 {
		t.Fatalf("the command cannot write what write_file made: %s", res.Output)
	}
	if err := sb.Close(); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{".", "suid", "mine.txt", "d", "d/e", "d/e/new.txt"} {
		fi, err := os.Lstat(filepath.Join(work, rel))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if st.Uid != 0 || st.Gid != 0 {
			t.Errorf("%s is owned by %d:%d after Close, want 0:0", rel, st.Uid, st.Gid)
		}
		if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("%s kept %v", rel, fi.Mode())
		}
	}
}

// TestWallsReport checks that the probe's parser names each missing wall.
func TestWallsReport(t *testing.T) {
	good := "NoNewPrivs:\t1\nSeccomp:\t2\nCapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\nCapAmb:\t0000000000000000\nworkmount: rw,nosuid,nodev,relatime\nlandlock: enforced, ABI 7\n"
	host := hostIdentity{drop: true, uid: 65534, gid: 65534}
	w := readWalls(good, "/w")
	w.outsideUID = 65534
	if m := w.missingRequired(host, true); len(m) != 0 || w.landlockABI != 7 {
		t.Fatalf("good probe: missing %q, landlock %d", m, w.landlockABI)
	}
	for _, tc := range []struct {
		name, out string
		uid       int
		want      string
	}{
		{"root outside", good, 0, "root outside"},
		{"no nnp", strings.Replace(good, "NoNewPrivs:\t1", "NoNewPrivs:\t0", 1), 65534, "no_new_privs"},
		{"caps", strings.Replace(good, "CapBnd:\t0000000000000000", "CapBnd:\t000001ffffffffff", 1), 65534, "CapBnd"},
		{"seccomp", strings.Replace(good, "Seccomp:\t2", "Seccomp:\t0", 1), 65534, "seccomp"},
		{"sysctl", good + "sysctl: writable\n", 65534, "core_pattern"},
		{"suid mount", strings.Replace(good, "rw,nosuid,nodev,relatime", "rw,relatime", 1), 65534, "nosuid,nodev"},
	} {
		w := readWalls(tc.out, "/w")
		w.outsideUID = tc.uid
		if m := strings.Join(w.missingRequired(host, true), "; "); !strings.Contains(m, tc.want) {
			t.Errorf("%s: missing %q, want it to name %q", tc.name, m, tc.want)
		}
	}
}
