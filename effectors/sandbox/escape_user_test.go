//go:build linux

package sandbox

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The corpus as an ordinary user. Run as root, the spine hands its commands to an
// unprivileged host uid; run as anyone else, they run as that user's own uid in an
// unprivileged user namespace, with the walls built without any privilege of the
// spine's. TestEscapeCorpusAsUser re-runs the corpus in that second situation: this test
// binary again, as an unused uid, in a directory that uid owns.
//
// It runs the kernel-only configuration of every entry: the word checks of the shipped
// configuration do not depend on who runs the spine, the walls do, and kernel-only is
// where every shell step reaches them (it halves the run, about a minute here).

// escapeModesEnv names the configurations TestEscapeCorpus runs (comma-separated); the
// re-run sets it.
const escapeModesEnv = "SPINE_ESCAPE_MODES"

// escapeUserID is the uid and gid the corpus re-runs as: in no /etc/passwd, owned by
// nothing else on a test machine, and not 65534, which a root spine's commands run as.
const escapeUserID = 64123

func TestEscapeCorpusAsUser(t *testing.T) {
	if os.Getenv(escapeModesEnv) != "" {
		t.Skip("this is the re-run")
	}
	if os.Geteuid() != 0 {
		t.Skip("not root: TestEscapeCorpus already runs the corpus as an ordinary user")
	}
	if testing.Short() {
		t.Skip("-short: the corpus re-run takes about a minute")
	}
	base, err := os.MkdirTemp("", "spine-escape-user-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	// The test binary and the corpus, where the uid can read them: the build directory
	// and the checkout may lie under a parent only root may search.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(base, "sandbox.test")
	copyFile(t, exe, bin, 0o755)
	pkg := filepath.Join(base, "pkg")
	if err := os.MkdirAll(filepath.Join(pkg, "testdata", "escape"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, filepath.Join("testdata", "escape", "corpus.yaml"), filepath.Join(pkg, "testdata", "escape", "corpus.yaml"), 0o644)
	home := filepath.Join(base, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, escapeUserID, escapeUserID); err != nil {
		t.Fatal(err)
	}
	cred := &syscall.Credential{Uid: escapeUserID, Gid: escapeUserID, Groups: []uint32{}}
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + home, escapeModesEnv + "=kernel-only"}
	if ci := os.Getenv("CI"); ci != "" {
		env = append(env, "CI="+ci)
	}

	// Can that uid make a user namespace at all? Where it cannot, there is no sandbox for
	// an ordinary user to test.
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		t.Skipf("no bwrap: %v", err)
	}
	probe := exec.Command(bwrap, "--unshare-user", "--unshare-pid", "--ro-bind", "/", "/", "--proc", "/proc", "/bin/true")
	probe.Env, probe.Dir = env, home
	probe.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	if out, err := probe.CombinedOutput(); err != nil {
		t.Skipf("uid %d may not create user namespaces here (%v: %s): the corpus cannot run as an ordinary user on this machine", escapeUserID, err, bytes.TrimSpace(out))
	}

	cmd := exec.Command(bin, "-test.run=^TestEscapeCorpus$", "-test.count=1", "-test.v")
	cmd.Env, cmd.Dir = env, pkg
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	out, err := cmd.CombinedOutput()
	summary := ""
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, "escape corpus as uid") {
			summary = strings.TrimSpace(line)
		}
	}
	if err != nil {
		t.Fatalf("the corpus as uid %d: %v\n%s", escapeUserID, err, failures(out))
	}
	if !strings.Contains(summary, "escape corpus as uid 64123:") {
		t.Fatalf("the re-run did not report its corpus: %q", summary)
	}
	t.Log(summary)
}

// failures keeps the lines of a verbose test run that explain its failures: first every
// failed test and every message that is not a step's log (the errors, wherever they
// stand in a long run), then the run's last 20,000 bytes without its passes.
func failures(out []byte) string {
	var errs, keep []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "=== ") || strings.Contains(line, "--- PASS") {
			continue
		}
		keep = append(keep, line)
		if _, msg, ok := strings.Cut(line, "_test.go:"); strings.Contains(line, "--- FAIL") ||
			ok && !strings.Contains(msg, ": step ") {
			errs = append(errs, line)
		}
	}
	s := strings.Join(keep, "\n")
	if len(s) > 20000 {
		s = s[len(s)-20000:]
	}
	return strings.Join(errs, "\n") + "\n\nthe run's end:\n" + s
}

func copyFile(t *testing.T, from, to string, perm os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
