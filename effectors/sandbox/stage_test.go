//go:build linux

package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	fifo := filepath.Join(work, "go")
	done := make(chan string, 1)
	go func() {
		res, err := sb.Shell(context.Background(), "mkfifo go && cat go && echo released", 0)
		if err != nil {
			done <- "error: " + err.Error()
			return
		}
		done <- res.Output
	}()
	// Wait for the event (the FIFO made inside), not for a time.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if fi, err := os.Lstat(fifo); err == nil && fi.Mode()&os.ModeNamedPipe != 0 {
			break
		}
		select {
		case out := <-done:
			t.Fatalf("the call ended before its FIFO appeared: %s", out)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the call never made its FIFO")
		}
		time.Sleep(5 * time.Millisecond)
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
