package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// fixture is a sandbox root with files, plus a sibling directory outside it holding a
// secret, and symlinks of every kind between them.
type fixture struct {
	sb      *Sandbox
	base    string // parent of root and outside
	root    string
	outside string
}

const secret = "TOP SECRET outside the root"

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{base: base, root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.MkdirAll(filepath.Join(f.root, "sub", "deep"), 0o755))
	must(os.MkdirAll(f.outside, 0o755))
	must(os.WriteFile(filepath.Join(f.outside, "secret.txt"), []byte(secret), 0o644))
	must(os.WriteFile(filepath.Join(f.root, "a.txt"), []byte("alpha\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.root, "sub", "b.txt"), []byte("beta\n"), 0o644))
	must(os.WriteFile(filepath.Join(f.root, "sub", "deep", "c.go"), []byte("package c\n"), 0o644))
	must(os.Symlink(filepath.Join(f.outside, "secret.txt"), filepath.Join(f.root, "link_out_file")))
	must(os.Symlink(f.outside, filepath.Join(f.root, "link_out_dir")))
	must(os.Symlink("a.txt", filepath.Join(f.root, "link_in")))
	must(os.Symlink("../..", filepath.Join(f.root, "sub", "link_up")))
	must(os.Symlink(filepath.Join(f.outside, "created-through-link.txt"), filepath.Join(f.root, "dangling_out")))
	sb, err := New(f.root, opts)
	must(err)
	t.Cleanup(func() { sb.Close() })
	f.sb = sb
	return f
}

func (f *fixture) read(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(f.root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
