package trace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteKeyPair: a new pair loads as a signer with the returned fingerprint, the
// private key is 0600 whatever the umask, and a second pair on either path is refused
// with os.ErrExist, leaving the first untouched.
func TestWriteKeyPair(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.key")
	fp, err := WriteKeyPair(path)
	if err != nil {
		t.Fatal(err)
	}
	sg, err := LoadSigner(path)
	if err != nil || sg.Fingerprint() != fp {
		t.Fatalf("signer %v, %v; want fingerprint %s", sg, err, fp)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("private key mode: %v, %v", fi.Mode(), err)
	}
	before, _ := os.ReadFile(path)
	for _, p := range []string{path, filepath.Join(dir, "pub.key")} {
		if p != path {
			if err := os.WriteFile(p+".pub", nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := WriteKeyPair(p); !errors.Is(err, os.ErrExist) {
			t.Errorf("%s: %v, want os.ErrExist", p, err)
		}
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("the first key was overwritten")
	}
	if _, err := os.Stat(filepath.Join(dir, "pub.key")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused pair wrote its private key: %v", err)
	}
}
