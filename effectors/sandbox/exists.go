package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
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

// How a tool_calls entry's call went, as ReadEntry tells it (contract.ReadToolCall).
const (
	EntrySucceeded  = contract.ToolCallSucceeded
	EntryRefused    = contract.ToolCallRefused
	EntryFailed     = contract.ToolCallFailed
	EntryUnreadable = contract.ToolCallUnreadable
)

// ReadEntry tells how the call a tool_calls entry records went, from its evidence alone
// (contract.ReadToolCall, where the entry's format is).
func ReadEntry(entry string) string { return contract.ReadToolCall(entry) }
