package mcp

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/mcp/internal/testserver"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/secrets"
)

func TestMain(m *testing.M) {
	testserver.Main()
	os.Exit(m.Run())
}

// requireJail is the sandbox the servers run in: bubblewrap, or a failure in CI and a
// skip elsewhere when this machine cannot provide it.
func requireJail(t *testing.T) *sandbox.Bubblewrap {
	t.Helper()
	b, err := sandbox.NewBubblewrap(sandbox.BubblewrapOptions{})
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("CI must be able to sandbox MCP servers: %v", err)
		}
		t.Skipf("no sandbox on this machine: %v", err)
	}
	return b
}

// workDir is a work dir the sandbox's unprivileged uid may write.
func workDir(t *testing.T) string {
	dir := t.TempDir()
	if err := os.Chmod(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

// goServer is this test binary run as the Go SDK test server, inside the sandbox.
func goServer(t *testing.T, name string, timeout time.Duration) Server {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testserver.EnvVar, "1")
	return Server{Name: name, Command: exe, Env: []string{testserver.EnvVar}, Timeout: timeout,
		ReadOnly: []string{filepath.Dir(exe)}}
}

func osEnv(name string) (string, bool) { return os.LookupEnv(name) }

func openBox(t *testing.T, servers ...Server) (*Toolbox, string) {
	t.Helper()
	jail := requireJail(t)
	dir := workDir(t)
	base, err := sandbox.New(dir, sandbox.Options{Jail: jail})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	tb, err := Open(context.Background(), base, Options{Servers: servers, Starter: jail, Dir: base.Root(), Env: osEnv,
		Scrub: secrets.New("sk-test-secret-value-123")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb, base.Root()
}

func offered(tb *Toolbox) map[string]Tool {
	m := map[string]Tool{}
	for _, t := range tb.Tools() {
		if t.Refused == "" {
			m[t.Name] = t
		}
	}
	return m
}

func TestGoServerToolsCallsAndRefusals(t *testing.T) {
	tb, dir := openBox(t, goServer(t, "go", 5*time.Second))
	if st := tb.Status(); len(st) != 1 || st[0].Unavailable != "" {
		t.Fatalf("status %+v", st)
	}
	tools := offered(tb)
	for _, want := range []string{"mcp__go__echo", "mcp__go__write", "mcp__go__notes"} {
		if _, ok := tools[want]; !ok {
			t.Errorf("%s is not offered; offered: %v", want, tb.Describe())
		}
	}
	// Named like a built-in, or forging the naming: refused, with the reason on record.
	refusals := map[string]string{}
	for _, tl := range tb.Tools() {
		if tl.Refused != "" {
			refusals[tl.Remote] = tl.Refused
		}
	}
	if !strings.Contains(refusals["shell"], "built-in tool shell") {
		t.Errorf("the server's shell: refusal %q", refusals["shell"])
	}
	if !strings.Contains(refusals["other__read"], "forge") {
		t.Errorf("other__read: refusal %q", refusals["other__read"])
	}
	specs := tb.Specs()
	if specs[0].Name != sandbox.ToolShell {
		t.Errorf("the built-in tools come first: %v", specs[0].Name)
	}
	// The injection reaches the model marked as the server's words, on one line, with no
	// control or bidi character.
	d := tools["mcp__go__notes"].Description
	if strings.ContainsAny(d, "\x1b\x07\u202e\n") || !strings.HasPrefix(d, "[MCP server go; its own words") {
		t.Errorf("description not sanitised: %q", d)
	}

	ctx := context.Background()
	r, err := tb.Call(ctx, "mcp__go__echo", []byte(`{"path":"notes/a.txt"}`))
	if err != nil || r.Output != "echo notes/a.txt" || r.Target != "notes/a.txt" {
		t.Errorf("echo: %+v, %v", r, err)
	}
	if got, _ := tb.ToolTarget("mcp__go__echo", `{"path":"x"}`); got != "x" {
		t.Errorf("target %q", got)
	}
	// Arguments are checked before the call; the refusal names the field.
	r, err = tb.Call(ctx, "mcp__go__echo", []byte(`{"path":7}`))
	var ae *ArgsError
	if !errors.As(err, &ae) || ae.Field != "path" || !r.Refused {
		t.Errorf("bad argument: %+v, %v", r, err)
	}
	// The server writes in the work dir, the only writable place it has.
	if r, err := tb.Call(ctx, "mcp__go__write", []byte(`{"path":"out.txt","text":"hello"}`)); err != nil || r.ExitCode != 0 {
		t.Fatalf("write: %+v, %v", r, err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out.txt")); err != nil || string(b) != "hello" {
		t.Errorf("out.txt: %q, %v", b, err)
	}
	// Nothing outside the sandbox's view is visible to it.
	if r, err := tb.Call(ctx, "mcp__go__escape", []byte(`{"path":"x"}`)); err != nil || r.Output != "escape: " {
		t.Errorf("escape: %+v, %v", r, err)
	}
	// A built-in call goes to the sandbox, not the server.
	if r, _ := tb.Call(ctx, sandbox.ToolListFiles, []byte(`{}`)); !strings.Contains(r.Output, "out.txt") {
		t.Errorf("list_files: %+v", r)
	}
}

// Each hostile behaviour ends in a result or a fault that says what happened.
func TestHostileServer(t *testing.T) {
	ctx := context.Background()
	t.Run("hang", func(t *testing.T) {
		tb, _ := openBox(t, goServer(t, "h", 500*time.Millisecond))
		r, err := tb.Call(ctx, "mcp__h__hang", []byte(`{"path":"a"}`))
		if err != nil || !r.TimedOut || !strings.Contains(r.Output, "timed out") {
			t.Errorf("hang: %+v, %v", r, err)
		}
		if r, err := tb.Call(ctx, "mcp__h__echo", []byte(`{"path":"b"}`)); err != nil || r.Output != "echo b" {
			t.Errorf("after a hang the server still answers: %+v, %v", r, err)
		}
	})
	t.Run("crash", func(t *testing.T) {
		tb, _ := openBox(t, goServer(t, "c", 5*time.Second))
		_, err := tb.Call(ctx, "mcp__c__crash", []byte(`{"path":"a"}`))
		var ue *UnavailableError
		if !errors.As(err, &ue) || ue.FaultKind() != contract.FaultToolUnavailable {
			t.Fatalf("crash: %v, want an UnavailableError", err)
		}
		if _, err := tb.Call(ctx, "mcp__c__echo", []byte(`{"path":"b"}`)); !errors.As(err, &ue) {
			t.Errorf("a call after the crash: %v, want unavailable", err)
		}
	})
	t.Run("huge", func(t *testing.T) {
		tb, _ := openBox(t, goServer(t, "b", 10*time.Second))
		r, err := tb.Call(ctx, "mcp__b__huge", []byte(`{"path":"a"}`))
		var ue *UnavailableError
		if !errors.As(err, &ue) {
			t.Fatalf("10 MB: %v (output %d bytes), want an UnavailableError", err, len(r.Output))
		}
		if len(r.Output) > 4096 {
			t.Errorf("the refused answer reached the result: %d bytes", len(r.Output))
		}
	})
}

func TestServerThatCannotStart(t *testing.T) {
	tb, _ := openBox(t, Server{Name: "nope", Command: "/nonexistent/server"})
	st := tb.Status()
	if len(st) != 1 || !strings.Contains(st[0].Unavailable, "/nonexistent/server") {
		t.Errorf("status %+v", st)
	}
	if len(tb.Specs()) != 4 {
		t.Errorf("an unavailable server offers tools: %v", tb.Specs())
	}
}

// The npm reference server "everything" lists its tools with schemas nobody here wrote;
// its echo tool answers, and a wrong argument is refused before the call.
func TestEverythingServer(t *testing.T) {
	wd, _ := os.Getwd()
	third, err := ThirdPartyDir(wd)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	tb, _ := openBox(t, NpmServer(third, "ev", "server-everything", "stdio"))
	if st := tb.Status(); st[0].Unavailable != "" {
		t.Fatalf("server-everything did not start: %s", st[0].Unavailable)
	}
	if _, ok := offered(tb)["mcp__ev__echo"]; !ok {
		t.Fatalf("no echo tool: %s", tb.Describe())
	}
	r, err := tb.Call(context.Background(), "mcp__ev__echo", []byte(`{"message":"hello from the spine"}`))
	if err != nil || !strings.Contains(r.Output, "hello from the spine") {
		t.Errorf("echo: %+v, %v", r, err)
	}
	_, err = tb.Call(context.Background(), "mcp__ev__echo", []byte(`{"message":5}`))
	var ae *ArgsError
	if !errors.As(err, &ae) || ae.Field != "message" {
		t.Errorf("a number for message: %v, want a refusal naming message", err)
	}
}
