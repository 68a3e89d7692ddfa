//go:build linux

package sandbox

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
)

// A long-lived program started in the sandbox talks over its pipes, sees the work dir and
// nothing of the spine's own, and leaves no process behind once stopped.
func TestStartTalksAndStopsEverything(t *testing.T) {
	b := requireBubblewrap(t, BubblewrapOptions{})
	dir := t.TempDir()
	// The script answers each line with facts about where it runs, and leaves a child
	// behind, which Stop must take down with it.
	script := `sleep 1000 & echo "child $!"; while read -r line; do
	  case "$line" in
	    pwd) pwd;;
	    net) cat /proc/net/dev 2>/dev/null | grep -c ':' ;;
	    home) ls /root 2>&1 | head -1;;
	    *) echo "echo $line";;
	  esac
	done`
	r, err := b.Start(context.Background(), Program{Argv: []string{"/bin/sh", "-c", script}, Dir: dir, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(r.Stdout)
	ask := func(q string) string {
		t.Helper()
		if _, err := fmt.Fprintln(r.Stdin, q); err != nil {
			t.Fatal(err)
		}
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the answer to %q: %v", q, err)
		}
		return strings.TrimSpace(line)
	}
	first, err := out.ReadString('\n')
	if err != nil || !strings.HasPrefix(first, "child ") {
		t.Fatalf("first line %q, %v", first, err)
	}
	if got := ask("hello"); got != "echo hello" {
		t.Errorf("echo: %q", got)
	}
	if got := ask("pwd"); got != dir {
		t.Errorf("pwd inside = %q, want the work dir %q", got, dir)
	}
	if got := ask("net"); got != "1" { // lo only
		t.Errorf("network interfaces inside = %q, want only loopback", got)
	}
	if got := ask("home"); !strings.Contains(got, "No such file") && got != "" {
		t.Errorf("/root is visible inside: %q", got)
	}
	hostPID := r.pid
	if err := r.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := io.ReadAll(r.Stdout); err == nil {
		t.Error("reading stdout after Stop succeeded; it is closed")
	}
	if hostPID > 0 && syscall.Kill(hostPID, 0) == nil {
		t.Errorf("bwrap (pid %d) is still alive after Stop", hostPID)
	}
	if err := r.Stop(); err != nil {
		t.Errorf("a second Stop: %v", err)
	}
}

// Unconfined starts the program as this user; Stop ends its process group.
func TestStartUnconfined(t *testing.T) {
	r, err := Unconfined{}.Start(context.Background(), Program{Argv: []string{"/bin/cat"}, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(r.Stdin, "ping")
	line, err := bufio.NewReader(r.Stdout).ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("cat answered %q, %v", line, err)
	}
	r.Stop()
	select {
	case <-r.Done():
	default:
		t.Fatal("Done is open after Stop")
	}
}

func TestStartRefusesARelativeProgram(t *testing.T) {
	if _, err := (Unconfined{}).Start(context.Background(), Program{Argv: []string{"cat"}, Dir: "/"}); err == nil {
		t.Fatal("a relative program path was accepted")
	}
}
