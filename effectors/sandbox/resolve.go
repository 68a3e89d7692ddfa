package sandbox

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// resolve maps a path given by the model to a real path inside the root. Relative paths
// are taken from the root; "~" stands for the root (the shell's HOME). The path is cleaned,
// checked, its longest existing prefix is resolved through symlinks, and the result is
// checked again. It returns the resolved absolute path, the same path relative to the
// root (slash-separated, "." for the root itself) and the cleaned path before symlink
// resolution (whose last element may itself be a symlink).
func (s *Sandbox) resolve(tool, p string) (abs, rel, lexical string, err error) {
	refuse := func(kind error, format string, args ...any) (string, string, string, error) {
		return "", "", "", &RefusedError{Tool: tool, Target: p, Kind: kind, Reason: fmt.Sprintf(format, args...)}
	}
	if strings.ContainsRune(p, 0) {
		return refuse(ErrOutsideRoot, "the path contains a NUL byte")
	}
	q := p
	switch {
	case q == "~":
		q = s.root
	case strings.HasPrefix(q, "~/"):
		q = filepath.Join(s.root, q[2:])
	case filepath.IsAbs(q):
		q = filepath.Clean(q)
	default:
		q = filepath.Join(s.root, q)
	}
	if !within(s.root, q) {
		return refuse(ErrOutsideRoot, "the path is outside the sandbox root")
	}
	real, err := evalExistingPrefix(s.root, q)
	if err != nil {
		return refuse(ErrSymlink, "cannot resolve the path's symlinks: %v", s.scrubRoot(err.Error()))
	}
	if !within(s.root, real) {
		return refuse(ErrOutsideRoot, "the path leads through a symlink to a place outside the sandbox root")
	}
	r, err := filepath.Rel(s.root, real)
	if err != nil {
		return refuse(ErrOutsideRoot, "the path cannot be expressed from the root: %v", err)
	}
	return real, filepath.ToSlash(r), q, nil
}

// evalExistingPrefix resolves symlinks in the longest prefix of p that exists and
// appends the rest unchanged (it does not exist yet, so it holds no symlink). A dangling
// symlink is followed by hand, so that one pointing outside the root is seen for what it
// is (a shell redirection through it would create the file out there).
func evalExistingPrefix(root, p string) (string, error) {
	for range maxLinkHops {
		cur, rest := longestExisting(p)
		if cur == root { // already resolved when the sandbox was opened
			return filepath.Join(root, rest), nil
		}
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		// cur exists, so its parents resolve; only cur itself can be a dangling link.
		fi, lerr := os.Lstat(cur)
		if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return "", err
		}
		target, rerr := os.Readlink(cur)
		if rerr != nil {
			return "", rerr
		}
		if !filepath.IsAbs(target) {
			parent, perr := filepath.EvalSymlinks(filepath.Dir(cur))
			if perr != nil {
				return "", perr
			}
			target = filepath.Join(parent, target)
		}
		p = filepath.Join(target, rest)
	}
	return "", errors.New("too many levels of symbolic links")
}

// maxLinkHops bounds the dangling-symlink chase (the kernel's own limit is similar).
const maxLinkHops = 40

// longestExisting splits p into its longest existing prefix and the rest.
func longestExisting(p string) (cur, rest string) {
	cur = p
	for {
		if _, err := os.Lstat(cur); err == nil {
			return cur, rest
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return cur, rest
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// within tells whether p is root or below it; both are clean absolute paths.
func within(root, p string) bool {
	if p == root || root == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, root+string(filepath.Separator))
}

// scrubRoot shortens messages by naming the root "<root>".
func (s *Sandbox) scrubRoot(msg string) string {
	return strings.ReplaceAll(msg, s.root, "<root>")
}
