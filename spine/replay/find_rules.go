package replay

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Where a replay looks for the rule file of a trace that does not carry its own
// (RecordedRules): the files it reads and how, and the error that names every one it
// looked at. The recording's own rules (EmbeddedRules) need none of it.

// RecordedRules finds the rule set a recording was made with. A trace carries its rule
// file in the header, so nothing is looked up. One written before headers did is matched
// by hash, never by name, among every shipped rule file, the recorded path and the rule
// files beside the trace; those two paths come from outside, so they are read only
// through ReadRecordedRuleFile, and what it refused is named in the error.
func (r *Recording) RecordedRules() (*ruleset.RuleSet, error) {
	if rs, err := r.EmbeddedRules(); rs != nil || err != nil {
		return rs, err
	}
	recorded, hash := r.Header.Rules.Path, r.Header.Rules.Hash
	files := RuleFilesIn(rules.FS, "shipped ")
	if recorded != "" {
		if _, err := os.Lstat(recorded); err == nil {
			files = append(files, RuleFile{Name: recorded, Read: func() ([]byte, error) { return ReadRecordedRuleFile(recorded) }})
		}
	}
	for _, f := range RuleFilesBeside(filepath.Dir(r.Name)) {
		if recorded == "" || filepath.Clean(f.Name) != filepath.Clean(recorded) {
			files = append(files, f)
		}
	}
	return FindRulesByHash(recorded, hash, files)
}

// ReadRecordedRuleFile reads a rule file named by a trace (its header's rules.path, or
// a file of that name beside it). It opens only a regular file (a symlink is followed
// and its target checked) of at most MaxRecordedRuleFile bytes, without blocking, so a
// path that names a device, a FIFO or a directory ends in an error at once.
func ReadRecordedRuleFile(path string) ([]byte, error) {
	f, err := trace.OpenRegular(path)
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
	return src, nil
}

// RuleFile is a rule file a replay may try for a trace that carries no rules: where it
// is, as messages name it, and how to read its bytes.
type RuleFile struct {
	Name string
	Read func() ([]byte, error)
}

// RuleFilesIn lists every *.yaml file at the top of fsys (the shipped rule files),
// sorted, each named prefix + its name.
func RuleFilesIn(fsys fs.FS, prefix string) []RuleFile {
	names, _ := fs.Glob(fsys, "*.yaml") // the pattern is valid, so Glob cannot fail
	out := make([]RuleFile, 0, len(names))
	for _, n := range names {
		out = append(out, RuleFile{Name: prefix + n, Read: func() ([]byte, error) { return fs.ReadFile(fsys, n) }})
	}
	return out
}

// RuleFilesBeside lists the *.yaml and *.yml files in dir, sorted (os.ReadDir sorts by
// name), each read through ReadRecordedRuleFile. A directory that cannot be read lists
// nothing.
func RuleFilesBeside(dir string) []RuleFile {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []RuleFile
	for _, e := range entries {
		if ext := path.Ext(e.Name()); e.IsDir() || (ext != ".yaml" && ext != ".yml") {
			continue
		}
		p := filepath.Join(dir, e.Name())
		out = append(out, RuleFile{Name: p, Read: func() ([]byte, error) { return ReadRecordedRuleFile(p) }})
	}
	return out
}

// RulesNotFoundError says that no rule file looked at has a trace's recorded hash, and
// where the replay looked.
type RulesNotFoundError struct {
	Path, Hash string   // as recorded
	Looked     []string // the files read, in order
	Refused    []string // the files that could not be read, with why
}

// maxNamed bounds the files an error names; a directory of rule files is summed up.
const maxNamed = 12

func (e *RulesNotFoundError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "recorded with rules %s (%s), and the header carries no rule source (a trace written before headers did); no rule file has that hash", e.Path, e.Hash)
	if len(e.Looked) == 0 {
		b.WriteString(" (none found to look at)")
	} else if len(e.Looked) <= maxNamed {
		fmt.Fprintf(&b, " (looked at %s)", strings.Join(e.Looked, ", "))
	} else {
		fmt.Fprintf(&b, " (looked at %s and %d more)", strings.Join(e.Looked[:maxNamed], ", "), len(e.Looked)-maxNamed)
	}
	if len(e.Refused) > 0 {
		fmt.Fprintf(&b, " (not read: %s)", strings.Join(e.Refused[:min(len(e.Refused), maxNamed)], "; "))
	}
	b.WriteString("; pass --rules FILE to replay with other rules")
	return b.String()
}

// FindRulesByHash reads the files in order and compiles the first whose bytes hash to
// hash. Identity is the hash alone: a file's name says nothing about its rules. When
// none has it, the error is a *RulesNotFoundError with path (the recorded one) and
// every file looked at.
func FindRulesByHash(path, hash string, files []RuleFile) (*ruleset.RuleSet, error) {
	nf := &RulesNotFoundError{Path: path, Hash: hash}
	for _, f := range files {
		src, err := f.Read()
		if err != nil {
			nf.Refused = append(nf.Refused, err.Error())
			continue
		}
		nf.Looked = append(nf.Looked, f.Name)
		if ruleset.HashOf(src) != hash {
			continue
		}
		rs, err := engine.LoadRules(f.Name, src)
		if err != nil {
			// The recorded bytes no longer compile (the loader grew stricter): say so,
			// since no other file can have the same hash.
			return nil, fmt.Errorf("recorded with rules %s (%s), found as %s, which no longer loads: %w", path, hash, f.Name, err)
		}
		return rs, nil
	}
	return nil, nf
}
