//go:build linux

package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestStagingStaysOutOfTheHost runs a call that blocks on a FIFO in the work dir and,
// while it runs, checks that no mount of the host shows the work dir: the staged binds
// live in the stager's own mount namespace, so a concurrent call, another spine on the
// machine or a crash leaves nothing behind.
func TestStagingStaysOutOfTheHost(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("staging is used only when the spine runs as root")
	}
	jail := requireBubblewrap(t, BubblewrapOptions{})
	parent := t.TempDir() // 0700: the host uid cannot reach it without staging
	work := filepath.Join(parent, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	sb, err := New(work, Options{Jail: jail, skipWordCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	// Two FIFOs anyone may open: the call says it runs through ready, and waits on go.
	ready, fifo := filepath.Join(work, "ready"), filepath.Join(work, "go")
	for _, p := range []string{ready, fifo} {
		if err := unix.Mkfifo(p, 0o666); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o666); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	done := make(chan string, 1)
	go func() {
		res, err := sb.Shell(context.Background(), "echo running > ready && cat go && echo released", 0)
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- res.Output
	}()
	// Wait for the event: opening ready for reading returns once the call opens it.
	opened := make(chan error, 1)
	go func() {
		f, err := os.Open(ready)
		if err == nil {
			_, err = io.ReadAll(f)
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case out := <-done:
		if w, err := os.OpenFile(ready, os.O_WRONLY|unix.O_NONBLOCK, 0); err == nil {
			w.Close() // lets the reader above return
		}
		t.Fatalf("the call ended before it signalled: %s", out)
	}
	info, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(info), "\n") {
		if strings.Contains(line, work) {
			t.Errorf("the host's mount table shows the work dir while a call runs:\n%s", line)
		}
	}
	f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("hello\n")
	f.Close()
	if out := <-done; !strings.Contains(out, "hello") || !strings.Contains(out, "released") {
		t.Errorf("the call's output: %q", out)
	}
}
