package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/agentspine/spine/contract"
)

// What a tool call left behind, read after the fact: whether a path is in the root, and
// whether a tool_calls entry records a call that did something. The evidence check of
// the role pipeline and the Auditor read them; neither changes anything.

// Exists reports whether rel, a slash-separated path relative to the root, names a file,
// a directory or a symlink that resolves inside the root. It only looks (a stat through
// the root's handle). A path that is absolute, holds "..", passes through a symlink out
// of the root or cannot be looked at is an error, not an answer.
func (s *Sandbox) Exists(rel string) (bool, error) {
	name := filepath.FromSlash(path.Clean(rel))
	if rel == "" || path.IsAbs(rel) || strings.HasPrefix(rel, "~") || !filepath.IsLocal(name) || hasDotDot(rel) {
		return false, fmt.Errorf("sandbox: exists %q: want a path relative to the root, without \"..\"", rel)
	}
	_, err := s.osRoot.Stat(name)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return false, nil
	}
	return false, fmt.Errorf("sandbox: exists %q: %s", rel, s.scrubRoot(err.Error()))
}

func hasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// How a tool_calls entry's call went, as ReadEntry tells it.
const (
	EntrySucceeded  = "succeeded"  // the call ran and nothing says it failed
	EntryRefused    = "refused"    // the runtime or the sandbox did not run it
	EntryFailed     = "failed"     // it ran and failed: an I/O error, an exit status, a timeout
	EntryUnreadable = "unreadable" // not an entry in the "<tool>:<target> → <evidence>" form
)

// failedTail matches the markers Shell appends to a command that ended badly; a limit
// report may follow them.
var failedTail = regexp.MustCompile(`\[(exit status -?\d+|timed out after [^\]]*)\]( \[limit reached: [^\]]*\])?$`)

// ReadEntry tells how the call a tool_calls entry records went, from its evidence alone:
// refused when the evidence begins "refused:"; failed when it ends with "[exit status N]"
// or "[timed out after …]" (a shell command, maybe followed by "[limit reached: …]"), or
// begins "error:" and the tool is not the shell (a file tool's I/O error: a command's own
// output may begin so, as grep's does, and the sandbox marks a failed command by its exit
// status); succeeded otherwise. An entry that contract.ParseToolCall cannot read is unreadable,
// which is no record of success either.
//
// The evidence keeps only the last contract.ToolCallEvidenceRunes characters of the output, so a refusal or
// an I/O error whose text is longer than that has lost its prefix and reads as succeeded:
// the answer errs toward success, never toward a failure that did not happen.
func ReadEntry(entry string) string {
	c, ok := contract.ParseToolCall(entry)
	tool, ev := c.Tool, c.Evidence
	switch {
	case !ok:
		return EntryUnreadable
	case strings.HasPrefix(ev, "refused:"):
		return EntryRefused
	case failedTail.MatchString(ev), tool != ToolShell && strings.HasPrefix(ev, "error:"):
		return EntryFailed
	}
	return EntrySucceeded
}
