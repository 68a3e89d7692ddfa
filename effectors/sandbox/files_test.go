package sandbox

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
)

func TestFileToolsRefuseEscapes(t *testing.T) {
	f := newFixture(t, Options{})
	ctx := context.Background()
	read := func(p string) (contract.ToolResponse, error) { return f.sb.ReadFile(ctx, p) }
	write := func(p string) (contract.ToolResponse, error) { return f.sb.WriteFile(ctx, p, "pwned") }
	list := func(p string) (contract.ToolResponse, error) { return f.sb.ListFiles(ctx, p, "", false) }
	cases := []struct {
		name string
		call func(string) (contract.ToolResponse, error)
		tool string
		path string
		kind error
	}{
		{"read ../", read, ToolReadFile, "../outside/secret.txt", ErrOutsideRoot},
		{"read ../ after a detour", read, ToolReadFile, "sub/../../outside/secret.txt", ErrOutsideRoot},
		{"read absolute outside", read, ToolReadFile, "/etc/passwd", ErrOutsideRoot},
		{"read absolute sibling", read, ToolReadFile, "@outside/secret.txt", ErrOutsideRoot},
		{"read ~/..", read, ToolReadFile, "~/../outside/secret.txt", ErrOutsideRoot},
		{"read symlink file", read, ToolReadFile, "link_out_file", ErrOutsideRoot},
		{"read through symlink dir", read, ToolReadFile, "link_out_dir/secret.txt", ErrOutsideRoot},
		{"read through intermediate link_up", read, ToolReadFile, "sub/link_up/outside/secret.txt", ErrOutsideRoot},
		{"read dangling link out", read, ToolReadFile, "dangling_out", ErrOutsideRoot},
		{"read NUL", read, ToolReadFile, "a.txt\x00", ErrOutsideRoot},
		{"write ../", write, ToolWriteFile, "../escape.txt", ErrOutsideRoot},
		{"write absolute outside", write, ToolWriteFile, "@outside/new.txt", ErrOutsideRoot},
		{"write through symlink file", write, ToolWriteFile, "link_out_file", ErrOutsideRoot},
		{"write into symlink dir", write, ToolWriteFile, "link_out_dir/new.txt", ErrOutsideRoot},
		{"write new dirs under symlink dir", write, ToolWriteFile, "link_out_dir/x/y/new.txt", ErrOutsideRoot},
		{"write through dangling link", write, ToolWriteFile, "dangling_out", ErrOutsideRoot},
		{"write through inside symlink", write, ToolWriteFile, "link_in", ErrSymlink},
		{"list ..", list, ToolListFiles, "..", ErrOutsideRoot},
		{"list symlink dir", list, ToolListFiles, "link_out_dir", ErrOutsideRoot},
		{"list absolute", list, ToolListFiles, "/", ErrOutsideRoot},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := strings.Replace(tc.path, "@", f.base+"/", 1)
			res, err := tc.call(p)
			var re *RefusedError
			if !errors.As(err, &re) || !errors.Is(err, tc.kind) {
				t.Fatalf("%s(%q) = %v, want a refusal of kind %v", tc.tool, p, err, tc.kind)
			}
			if !res.Refused || !strings.HasPrefix(res.Evidence, tc.tool+":") || !strings.Contains(res.Evidence, "→ refused:") {
				t.Errorf("result = %+v", res)
			}
			if strings.Contains(res.Output, secret) || strings.Contains(err.Error(), secret) {
				t.Errorf("the secret leaked: %q", res.Output)
			}
		})
	}
	// Nothing was written outside, and the inside symlink's target is untouched.
	entries, _ := os.ReadDir(f.outside)
	if len(entries) != 1 {
		t.Errorf("outside directory now holds %d entries", len(entries))
	}
	if _, err := os.Stat(filepath.Join(f.base, "escape.txt")); err == nil {
		t.Error("escape.txt was written next to the root")
	}
	if got := f.read(t, "a.txt"); got != "alpha\n" {
		t.Errorf("a.txt = %q after a write through link_in", got)
	}
}

func TestFileToolsInside(t *testing.T) {
	f := newFixture(t, Options{MaxRead: 8, MaxList: 3})
	ctx := context.Background()

	res, err := f.sb.ReadFile(ctx, "link_in") // a symlink that stays inside is fine to read
	if err != nil || res.Output != "alpha\n" || res.Evidence != "read_file:link_in → alpha" {
		t.Errorf("read link_in = %+v, %v", res, err)
	}
	res, err = f.sb.ReadFile(ctx, filepath.Join(f.root, "sub", "b.txt")) // absolute, inside
	if err != nil || res.Output != "beta\n" {
		t.Errorf("read absolute inside = %+v, %v", res, err)
	}
	if err := os.WriteFile(filepath.Join(f.root, "big.txt"), []byte("0123456789abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err = f.sb.ReadFile(ctx, "big.txt")
	if err != nil || !res.Truncated || !strings.HasPrefix(res.Output, "01234567\n[file truncated: showing 8 of 16 bytes]") {
		t.Errorf("read big = %+v, %v", res, err)
	}
	if _, err := f.sb.ReadFile(ctx, "sub"); err == nil || !strings.Contains(err.Error(), "is a directory; use list_files") {
		t.Errorf("read dir = %v", err)
	}
	if res, err := f.sb.ReadFile(ctx, "missing.txt"); err == nil || res.Output != "error: missing.txt: no such file or directory" {
		t.Errorf("read missing = %+v, %v", res, err)
	}

	res, err = f.sb.WriteFile(ctx, "new/dir/n.txt", "hello")
	if err != nil || res.Evidence != "write_file:new/dir/n.txt → wrote 5 bytes to new/dir/n.txt" {
		t.Errorf("write = %+v, %v", res, err)
	}
	if got := f.read(t, "new/dir/n.txt"); got != "hello" {
		t.Errorf("written content = %q", got)
	}
	if _, err := f.sb.WriteFile(ctx, ".", "x"); err == nil {
		t.Error("writing the root itself was accepted")
	}

	res, err = f.sb.ListFiles(ctx, "", "", false)
	if err != nil || !res.Truncated {
		t.Fatalf("list = %+v, %v", res, err)
	}
	wantTop := "a.txt\nbig.txt\ndangling_out@\n[5 more entries not shown]"
	if res.Output != wantTop {
		t.Errorf("list root =\n%s\nwant\n%s", res.Output, wantTop)
	}
	res, err = f.sb.ListFiles(ctx, "sub", "*.go", true)
	if err != nil || res.Output != "sub/deep/c.go" || res.Target != "sub/**/*.go" {
		t.Errorf("list recursive = %+v, %v", res, err)
	}
	res, err = f.sb.ListFiles(ctx, "sub", "", true)
	if err != nil || res.Output != "sub/b.txt\nsub/deep/\nsub/deep/c.go\n[1 more entries not shown]" {
		t.Errorf("list sub recursive = %q, %v", res.Output, err)
	}
	if _, err := f.sb.ListFiles(ctx, "a.txt", "", false); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("list a file = %v", err)
	}
	var ae *ArgsError
	if _, err := f.sb.ListFiles(ctx, ".", "[", false); !errors.As(err, &ae) || ae.Field != "pattern" {
		t.Errorf("bad pattern = %v", err)
	}
}
