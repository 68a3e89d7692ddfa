package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

func TestExists(t *testing.T) {
	f := newFixture(t, Options{})
	if err := os.WriteFile(filepath.Join(f.root, "sub", "plain"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("gone.txt", filepath.Join(f.root, "dangling_in")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel  string
		want bool
		err  string
	}{
		{rel: "a.txt", want: true},
		{rel: "./sub/b.txt", want: true},
		{rel: "sub/deep/", want: true},
		{rel: "sub", want: true},
		{rel: "link_in", want: true},
		{rel: "missing.txt"},
		{rel: "sub/missing/c.go"},
		{rel: "sub/plain/below"}, // a file where a directory is named: not there
		{rel: "dangling_in"},
		{rel: "dangling_out", err: `sandbox: exists "dangling_out": statat dangling_out: path escapes from parent`},
		{rel: "link_out_file", err: `sandbox: exists "link_out_file": statat link_out_file: path escapes from parent`},
		{rel: "", err: `sandbox: exists "": want a path relative to the root, without ".."`},
		{rel: "/etc/passwd", err: `sandbox: exists "/etc/passwd": want a path relative to the root, without ".."`},
		{rel: "~/a.txt", err: `sandbox: exists "~/a.txt": want a path relative to the root, without ".."`},
		{rel: "../outside/secret.txt", err: `sandbox: exists "../outside/secret.txt": want a path relative to the root, without ".."`},
		{rel: "sub/../a.txt", err: `sandbox: exists "sub/../a.txt": want a path relative to the root, without ".."`},
	} {
		got, err := f.sb.Exists(tc.rel)
		if msg := errText(err); got != tc.want || msg != tc.err {
			t.Errorf("Exists(%q) = %v, %q; want %v, %q", tc.rel, got, msg, tc.want, tc.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// ReadEntry reads the entries the tools themselves write.
func TestReadEntryOfRealCalls(t *testing.T) {
	f := newFixture(t, Options{Jail: Unconfined{}, Policy: Policy{Allow: []string{"cat", "true", "sleep", "echo"}}})
	ctx := context.Background()
	for _, tc := range []struct {
		tool, args string
		want       string
	}{
		{ToolReadFile, `{"path":"a.txt"}`, EntrySucceeded},
		{ToolWriteFile, `{"path":"out/new.txt","content":"x"}`, EntrySucceeded},
		{ToolListFiles, `{"path":"sub"}`, EntrySucceeded},
		{ToolShell, `{"command":"true"}`, EntrySucceeded},
		{ToolShell, `{"command":"echo '[exit status 3]' done"}`, EntrySucceeded},
		{ToolReadFile, `{"path":"missing.txt"}`, EntryFailed},
		{ToolShell, `{"command":"cat missing.txt"}`, EntryFailed},
		{ToolShell, `{"command":"sleep 5","timeout_ms":50}`, EntryFailed},
		{ToolReadFile, `{"path":"link_out_file"}`, EntryRefused},
		{ToolShell, `{"command":"rm -rf a.txt"}`, EntryRefused},
		{ToolShell, `{"nope":1}`, EntryRefused},
		{"fetch", `{}`, EntryRefused},
	} {
		r, _ := f.sb.Call(ctx, tc.tool, []byte(tc.args))
		if got := ReadEntry(r.Evidence); got != tc.want {
			t.Errorf("%s %s: entry %q reads %s, want %s", tc.tool, tc.args, r.Evidence, got, tc.want)
		}
	}
}

func TestReadEntry(t *testing.T) {
	for _, tc := range []struct {
		entry, want string
	}{
		{"read_file:a.txt → alpha", EntrySucceeded},
		{"shell:true → (no output)", EntrySucceeded},
		{"shell:make -> ok", EntrySucceeded},
		{"shell:make", EntrySucceeded}, // no arrow: no evidence, nothing says it failed
		{"read_file:a.txt → refused: the path is outside the sandbox root", EntryRefused},
		{"write_file:port.txt → refused: not confirmed: memory advises caution for this intent", EntryRefused},
		{"read_file:x → error: x: no such file or directory", EntryFailed},
		{"list_files:gone/* → error: gone: no such file or directory", EntryFailed},
		{"shell:grep error: app.log → error: disk full", EntrySucceeded}, // grep found a line
		{"shell:kubectl apply -f deploy.yaml → error: quota exceeded [exit status 1]", EntryFailed},
		{"shell:ls nope → ls: nope: No such file [exit status 2]", EntryFailed},
		{"shell:ls nope → [exit status -1]", EntryFailed},
		{"shell:sleep 9 → [timed out after 5s; process group killed]", EntryFailed},
		{"shell:big → x [exit status 137] [limit reached: memory]", EntryFailed},
		{"shell:echo → [exit status 2] and then more", EntrySucceeded},
		{"shell:echo → it said refused: no", EntrySucceeded},
		// A refusal longer than the evidence keeps is cut in the middle and keeps its mark.
		{contract.FormatToolCall(ToolShell, "x", "refused: "+strings.Repeat("why ", 40)), EntryRefused},
		{"", EntryUnreadable},
		{"no tool here", EntryUnreadable},
		{"a b:c → d", EntryUnreadable},
	} {
		if got := ReadEntry(tc.entry); got != tc.want {
			t.Errorf("ReadEntry(%q) = %s, want %s", tc.entry, got, tc.want)
		}
	}
}

// FuzzReadEntry checks that reading never panics, answers one of the four outcomes, and
// reads a short refusal or I/O error that contract.FormatToolCall wrote for what it is.
func FuzzReadEntry(f *testing.F) {
	for _, s := range []string{"read_file:a → refused: no", "shell:x → [exit status 1]", "", "\xff:→", "a:b -> error: c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		switch got := ReadEntry(s); got {
		case EntrySucceeded, EntryRefused, EntryFailed, EntryUnreadable:
		default:
			t.Fatalf("ReadEntry(%q) = %q", s, got)
		}
		why := strings.Join(strings.Fields(strings.ToValidUTF8(s, "\uFFFD")), " ") // as the entry writes it
		if len([]rune(why)) > contract.ToolCallEvidenceRunes-len("refused: ") {
			return
		}
		if got := ReadEntry(contract.FormatToolCall(ToolReadFile, s, "refused: "+s)); got != EntryRefused {
			t.Fatalf("a refusal of %q reads %s", s, got)
		}
		if got := ReadEntry(contract.FormatToolCall(ToolWriteFile, s, "error: "+s)); got != EntryFailed {
			t.Fatalf("an I/O error of %q reads %s", s, got)
		}
	})
}
