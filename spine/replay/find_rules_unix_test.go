//go:build unix

package replay

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// recordedRuleFile is any rule file's bytes, which a regular file gives back whole.
const recordedRuleFile = "name: ok\nrules: []\n"

// TestReadRecordedRuleFileRefuses: a rule path taken from a trace opens only a regular file
// under the cap; a device, a FIFO, a directory, a symlink to a device and a big file end
// at once with an error naming the path and what it is.
func TestReadRecordedRuleFileRefuses(t *testing.T) {
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	if err := syscall.Mkfifo(at("fifo.yaml"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", at("link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("big.yaml"), make([]byte, MaxRecordedRuleFile+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("ok.yaml"), []byte(recordedRuleFile), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: a character device, not a regular file"},
		{at("fifo.yaml"), at("fifo.yaml") + ": a named pipe (FIFO), not a regular file"},
		{at("link.yaml"), at("link.yaml") + ": a character device, not a regular file"},
		{dir, dir + ": a directory, not a regular file"},
		{at("big.yaml"), at("big.yaml") + ": larger than 1048576 bytes, the most a rule file named by a trace may have"},
		{at("missing.yaml"), "no such file or directory"},
	} {
		start := time.Now()
		_, err := ReadRecordedRuleFile(tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want %q", tc.path, err, tc.want)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%s: took %s", tc.path, d)
		}
	}
	src, err := ReadRecordedRuleFile(at("ok.yaml"))
	if err != nil || string(src) != recordedRuleFile {
		t.Fatalf("a regular rule file: %v", err)
	}
}
