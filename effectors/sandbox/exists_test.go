package sandbox

import (
	"context"
	"os"
	"path/filepath"
	"testing"
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
