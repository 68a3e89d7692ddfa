package spine

import (
	"fmt"
	"io"
	"os"

	"github.com/agentspine/spine/internal/fsmode"
)

// MaxRecordedRuleFile caps the size of a rule file that a replay opens by a path taken
// from a trace. A trace is outside input: its header may name /dev/zero or a FIFO, and
// the shipped rule files are a few kilobytes.
const MaxRecordedRuleFile = 1 << 20

// LoadRecordedRules loads a rule file named by a trace (its header's rules.path, or a
// file of that name beside it). It opens only a regular file (a symlink is followed and
// its target checked) of at most MaxRecordedRuleFile bytes, without blocking, so a path
// that names a device, a FIFO or a directory ends in an error at once.
func LoadRecordedRules(path string) (*RuleSet, error) {
	f, err := openRegularNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxRecordedRuleFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(src) > MaxRecordedRuleFile {
		return nil, fmt.Errorf("%s: larger than %d bytes, the most a rule file named by a trace may have", path, MaxRecordedRuleFile)
	}
	return LoadRules(path, src)
}

// checkRegular refuses a path that is not a regular file (after symlinks), naming what
// it is.
func checkRegular(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s: %s, not a regular file", path, fsmode.Name(fi.Mode()))
	}
	return nil
}
