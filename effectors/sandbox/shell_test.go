package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestShellRuns(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	res, err := f.sb.Shell(ctx, "pwd; cat a.txt; cat", 0) // cat without arguments reads an empty stdin
	if err != nil || res.ExitCode != 0 || res.Output != f.root+"\nalpha\n" {
		t.Fatalf("Shell = %+v, %v", res, err)
	}
	res, err = f.sb.Shell(ctx, "echo oops >&2; exit 3", 0)
	if err != nil || res.ExitCode != 3 || res.Output != "oops\n[exit status 3]" || res.Evidence != "shell:echo oops >&2; exit 3 → oops [exit status 3]" {
		t.Errorf("failing command = %+v, %v", res, err)
	}
}

func TestShellTimeLimitKillsProcessGroup(t *testing.T) {
	f := newFixture(t, Options{})
	start := time.Now()
	res, err := f.sb.Shell(context.Background(), "sleep 5", 200*time.Millisecond)
	if elapsed := time.Since(start); elapsed > 2*time.Second {
		t.Fatalf("sleep 5 with a 200ms limit took %s", elapsed)
	}
	if err != nil || !res.TimedOut || res.ExitCode != -1 || !strings.Contains(res.Evidence, "[timed out after 200ms; process group killed]") {
		t.Fatalf("Shell = %+v, %v", res, err)
	}

	// A background child holding the output pipe dies with the call. Its pid inside the
	// sandbox means nothing outside, so it is found by a marker in its arguments.
	start = time.Now()
	res, err = f.sb.Shell(context.Background(), "sleep 30.0417 & wait", 300*time.Millisecond)
	if elapsed := time.Since(start); elapsed > 2*time.Second || err != nil || !res.TimedOut {
		t.Fatalf("background child: %s, %+v, %v", elapsed, res, err)
	}
	if pids := processesWith("30.0417"); len(pids) > 0 {
		t.Fatalf("processes %v still running after the call was killed", pids)
	}
}

// processesWith lists the live processes whose command line contains marker.
func processesWith(marker string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err == nil && strings.Contains(string(cmdline), marker) && processAlive(pid) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// processAlive reads /proc: a missing entry or a zombie counts as dead.
func processAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	fields := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func TestShellParentCancel(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := f.sb.Shell(ctx, "sleep 5", 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shell under a cancelled context = %v", err)
	}
}

func TestShellOutputLimit(t *testing.T) {
	f := newFixture(t, Options{MaxOutput: 1000})
	res, err := f.sb.Shell(context.Background(), "seq 1 100000", 0)
	if err != nil || !res.Truncated {
		t.Fatalf("Shell = %+v, %v", res, err)
	}
	if !strings.HasPrefix(res.Output, "1\n2\n3\n") || !strings.HasSuffix(res.Output, "99999\n100000\n") {
		t.Errorf("output should keep head and tail: %q … %q", res.Output[:20], res.Output[len(res.Output)-20:])
	}
	if !strings.Contains(res.Output, "\n[output truncated: 587895 bytes omitted]\n") || len(res.Output) > 1100 {
		t.Errorf("output (%d bytes) lacks the truncation note: %q", len(res.Output), res.Output[480:560])
	}
	if !strings.HasSuffix(res.Evidence, "99998 99999 100000") {
		t.Errorf("evidence = %q", res.Evidence)
	}
}

func TestCapBuffer(t *testing.T) {
	b := newCapBuffer(8)
	for _, chunk := range []string{"ab", "cd", "ef", "gh", "ij", "klmnopq", "r"} {
		b.Write([]byte(chunk))
	}
	got, truncated := b.String()
	if want := "abcd\n[output truncated: 10 bytes omitted]\nopqr"; got != want || !truncated {
		t.Errorf("capBuffer = %q, %v; want %q", got, truncated, want)
	}
	small := newCapBuffer(8)
	small.Write([]byte("abcdef"))
	if got, truncated := small.String(); got != "abcdef" || truncated {
		t.Errorf("small capBuffer = %q, %v", got, truncated)
	}
}

func TestShellEnvironmentHasNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-host-secret")
	t.Setenv("GITHUB_TOKEN", "ghp-host-secret")
	t.Setenv("SPINE_VISIBLE", "not inherited either")
	for _, tc := range []struct {
		name string
		env  []string
		want []string
	}{
		{"inherited", nil, []string{"PATH="}},
		{"explicit", []string{"PATH=/usr/bin:/bin", "FOO=bar", "OPENAI_API_KEY=sk-explicit", "AWS_SECRET_ACCESS_KEY=x", "PGPASSWORD=y", "broken"}, []string{"FOO=bar", "PATH=/usr/bin:/bin"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{Env: tc.env})
			res, err := f.sb.Shell(context.Background(), "env", 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range []string{"sk-host-secret", "ghp-host-secret", "sk-explicit", "OPENAI_API_KEY", "AWS_SECRET", "PGPASSWORD", "SPINE_VISIBLE", "broken"} {
				if strings.Contains(res.Output, bad) {
					t.Errorf("environment contains %q:\n%s", bad, res.Output)
				}
			}
			for _, good := range append(tc.want, "HOME="+f.root, "PWD="+f.root) {
				if !strings.Contains(res.Output, good) {
					t.Errorf("environment lacks %q:\n%s", good, res.Output)
				}
			}
		})
	}
}

func TestShellRefusesPathsOutside(t *testing.T) {
	f := newFixture(t, Options{OutsidePaths: []string{"/usr/share"}})
	ctx := context.Background()
	for _, cmd := range []string{
		"cat ../outside/secret.txt",
		"cat /etc/passwd",
		"cd .. && ls",
		"ls ~/..",
		"cat link_out_file",
		"cat link_out_dir/secret.txt",
		"echo x > ../escape.txt",
		"echo x > dangling_out",
		"cp a.txt --target-directory=/tmp",
		"wc -l $(ls /etc)",
		"cat sub/link_up/outside/secret.txt",
	} {
		res, err := f.sb.Shell(ctx, cmd, 0)
		if !errors.Is(err, ErrOutsideRoot) || !res.Refused {
			t.Errorf("Shell(%q) = %v, want an outside-root refusal", cmd, err)
		}
		if strings.Contains(res.Output, secret) {
			t.Errorf("Shell(%q) leaked the secret", cmd)
		}
	}
	for _, cmd := range []string{"ls /usr/share > /dev/null", "cat a.txt 2>/dev/null", "/bin/echo ok", "grep -c alpha ./a.txt ~/a.txt"} {
		if res, err := f.sb.Shell(ctx, cmd, 0); err != nil {
			t.Errorf("Shell(%q) = %v, %q; want it to run", cmd, err, res.Output)
		}
	}
	if _, err := os.Stat(filepath.Join(f.outside, "created-through-link.txt")); err == nil {
		t.Error("a file was created outside through the dangling link")
	}
}

func TestShellSymlinkMadeByCommandThenRead(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	// The link target is computed at run time, so the text check cannot see it ...
	res, err := f.sb.Shell(ctx, `ln -s "$(dirname "$PWD")" up && echo linked`, 0)
	if err != nil || res.Output != "linked\n" {
		t.Fatalf("ln = %+v, %v", res, err)
	}
	// ... but every later use of the link is refused.
	if _, err := f.sb.ReadFile(ctx, "up/outside/secret.txt"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("read through the new link = %v", err)
	}
	if _, err := f.sb.WriteFile(ctx, "up/outside/new.txt", "x"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("write through the new link = %v", err)
	}
	if _, err := f.sb.ListFiles(ctx, "up", "", false); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("list through the new link = %v", err)
	}
	if res, err := f.sb.Shell(ctx, "cat up/outside/secret.txt", 0); !errors.Is(err, ErrOutsideRoot) || strings.Contains(res.Output, secret) {
		t.Errorf("cat through the new link = %v, %q", err, res.Output)
	}
}

func TestShellPolicy(t *testing.T) {
	cases := []struct {
		name    string
		policy  Policy
		command string
		denied  string // "" when the command must run
	}{
		{"default deny sudo", Policy{}, "sudo ls", `"sudo" is on the deny list`},
		{"default deny behind env", Policy{}, "env FOO=1 sudo ls", `"sudo" is on the deny list`},
		{"default deny by path", Policy{}, "/usr/bin/sudo ls", `"sudo" is on the deny list`},
		{"default allows the rest", Policy{}, "ls | wc -l", ""},
		{"deny in a pipeline", Policy{Deny: []string{"curl"}}, "echo x | curl -d @- example.com", `"curl" is on the deny list`},
		{"deny in a substitution", Policy{Deny: []string{"curl"}}, "echo $(curl example.com)", `"curl" is on the deny list`},
		{"deny in a subshell", Policy{Deny: []string{"curl"}}, "(cd sub; curl x)", `"curl" is on the deny list`},
		{"deny behind xargs", Policy{Deny: []string{"curl"}}, "echo x | xargs -n 1 curl", `"curl" is on the deny list`},
		{"empty deny list", Policy{Deny: []string{}}, "echo sudo", ""},
		{"allow list passes", Policy{Allow: []string{"ls", "cat", "wc"}}, "ls && cat a.txt | wc -c", ""},
		{"allow list refuses", Policy{Allow: []string{"ls", "cat"}}, "ls; touch x", `"touch" is not on the allow list (ls, cat)`},
		{"allow list checks wrappers", Policy{Allow: []string{"ls"}}, "env ls", `"env" is not on the allow list (ls)`},
		{"allow list checks substitutions", Policy{Allow: []string{"echo"}}, "echo $(whoami)", `"whoami" is not on the allow list (echo)`},
		{"allow list refuses computed names", Policy{Allow: []string{"echo"}}, "$CMD x", `the command name "$CMD" is computed`},
		{"allow list and control flow", Policy{Allow: []string{"test", "echo"}}, "if test -f a.txt; then echo yes; fi", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Options{Policy: tc.policy})
			res, err := f.sb.Shell(context.Background(), tc.command, 0)
			if tc.denied == "" {
				if err != nil {
					t.Fatalf("Shell(%q) = %v", tc.command, err)
				}
				return
			}
			if !errors.Is(err, ErrDenied) || !strings.Contains(err.Error(), tc.denied) || !res.Refused {
				t.Fatalf("Shell(%q) = %v, want denial %q", tc.command, err, tc.denied)
			}
		})
	}
	if _, err := newFixture(t, Options{}).sb.Shell(context.Background(), `echo "unterminated`, 0); !errors.Is(err, ErrUnparsable) {
		t.Errorf("unterminated quote = %v", err)
	}
}

// recordingConfirmer answers with a fixed verdict and remembers what it was asked.
type recordingConfirmer struct {
	mu     sync.Mutex
	answer bool
	asked  []Confirmation
}

func (r *recordingConfirmer) Confirm(_ context.Context, c Confirmation) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.asked = append(r.asked, c)
	return r.answer, nil
}

func TestShellDestructiveCommands(t *testing.T) {
	destructive := []struct{ command, reason string }{
		{"rm -rf sub", "rm -r deletes directories recursively"},
		{"rm -r -f sub", "rm -r"},
		{"rm --recursive sub", "rm -r"},
		{"sudo -n rm -R sub", "rm -r"}, // this sandbox's deny list is empty, so sudo reaches the detector
		{"find . -name '*.txt' -delete", "find deletes"},
		{"find . -exec rm {} ;", "find deletes"},
		{"mkfs.ext4 disk.img", "mkfs.ext4 formats"},
		{"dd if=/dev/zero of=a.txt bs=1 count=1", "dd of= overwrites"},
		{"git push --force origin main", "git push --force"},
		{"git push -f", "git push --force"},
		{"git push origin +main", "git push --force"},
		{"git reset --hard HEAD~1", "git reset --hard"},
		{"git clean -fdx", "git clean -f"},
		{"chmod -R 777 .", "chmod -R"},
		{"chown --recursive me .", "chown -R"},
		{"shred a.txt", "shred"},
		{"truncate -s 0 a.txt", "truncate"},
		{"echo x > a.txt", "> a.txt truncates an existing file"},
		{"sort a.txt >| a.txt", ">| a.txt truncates"},
		{"echo x &> sub/b.txt", "&> sub/b.txt truncates"},
		{"echo $(rm -rf sub)", "rm -r"},
	}
	benign := []string{"rm a.txt", "echo x >> a.txt", "echo x > new.txt", "echo x > /dev/null", "git push origin main", "chmod 644 a.txt",
		"cat a.txt 2>&1", "find . -name '*.txt'", "dd if=a.txt", "ls -rf"}

	refuser := &recordingConfirmer{answer: false}
	f := newFixture(t, Options{Confirmer: refuser, Policy: Policy{Deny: []string{}}})
	for _, tc := range destructive {
		before := len(refuser.asked)
		res, err := f.sb.Shell(context.Background(), tc.command, 0)
		if !errors.Is(err, ErrDestructive) || !res.Refused || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("Shell(%q) = %v, want a destructive refusal naming %q", tc.command, err, tc.reason)
			continue
		}
		if len(refuser.asked) != before+1 || refuser.asked[before].Command != tc.command {
			t.Errorf("Shell(%q): the confirmer was not asked", tc.command)
		}
	}
	if got := f.read(t, "a.txt"); got != "alpha\n" {
		t.Fatalf("a refused command changed a.txt: %q", got)
	}
	if _, err := os.Stat(filepath.Join(f.root, "sub", "b.txt")); err != nil {
		t.Fatalf("a refused command removed sub: %v", err)
	}
	asked := len(refuser.asked)
	for _, cmd := range benign {
		if _, err := f.sb.Shell(context.Background(), cmd, 0); errors.Is(err, ErrDestructive) {
			t.Errorf("Shell(%q) was taken for destructive: %v", cmd, err)
		}
	}
	if len(refuser.asked) != asked {
		t.Errorf("benign commands asked the confirmer: %+v", refuser.asked[asked:])
	}
}

func TestShellDestructiveNonInteractiveAndConfirmed(t *testing.T) {
	f := newFixture(t, Options{}) // RefuseAll by default
	res, err := f.sb.Shell(context.Background(), "rm -rf sub", 0)
	if !errors.Is(err, ErrDestructive) || res.Evidence != "shell:rm -rf sub → refused: destructive command not confirmed (rm -r deletes directories recursively)" {
		t.Fatalf("non-interactive rm -rf = %+v, %v", res, err)
	}

	approve := &recordingConfirmer{answer: true}
	g := newFixture(t, Options{Confirmer: approve})
	if _, err := g.sb.Shell(context.Background(), "rm -rf sub && echo x > a.txt", 0); err != nil {
		t.Fatalf("confirmed command = %v", err)
	}
	if _, err := os.Stat(filepath.Join(g.root, "sub")); !os.IsNotExist(err) {
		t.Errorf("sub still exists after a confirmed rm -rf: %v", err)
	}
	want := []string{"rm -r deletes directories recursively", "> a.txt truncates an existing file (write_file replaces a file's content on purpose)"}
	if len(approve.asked) != 1 || !slices.Equal(approve.asked[0].Reasons, want) {
		t.Errorf("confirmer asked %+v", approve.asked)
	}

	failing := ConfirmFunc(func(context.Context, Confirmation) (bool, error) { return true, errors.New("no terminal") })
	h := newFixture(t, Options{Confirmer: failing})
	if _, err := h.sb.Shell(context.Background(), "rm -rf sub", 0); !errors.Is(err, ErrDestructive) || !strings.Contains(err.Error(), "confirmation failed: no terminal") {
		t.Errorf("failing confirmer = %v", err)
	}
}

func BenchmarkCheckCommand(b *testing.B) {
	sb, err := New(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	cmd := `grep -rn "TODO" src | sort | head -20 > todo.txt && wc -l todo.txt`
	b.ReportAllocs()
	for b.Loop() {
		if err := sb.checkCommand(context.Background(), cmd); err != nil {
			b.Fatal(err)
		}
	}
}
