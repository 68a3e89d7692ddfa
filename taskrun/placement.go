package taskrun

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Where `spine run` keeps its own files. The executor's tools may read and change
// anything in the work dir, so the model configuration (and its key), the trace, the
// memory store and a watched rule file must lie outside it; and the trace, by default,
// goes to a private state directory rather than the current directory, which is also the
// default work dir.

// EnvTraceDir names the directory for traces when --trace is not given.
const EnvTraceDir = "SPINE_TRACE_DIR"

// ownFile is one of the run's own files: the flag (or variable) that named it, its path
// as given, and what the tools could do with it if it were in their reach.
type ownFile struct {
	flag, path, risk string
}

// runPlacement checks the files of a `spine run` against the work dir and returns the
// directory a trace goes to when --trace is not given ("" when it is). getenv and home
// are os.Getenv and os.UserHomeDir outside tests.
func runPlacement(workdir, config, trace, memory, watchedRules string, getenv func(string) string, home func() (string, error)) (string, error) {
	files := []ownFile{
		{"--config", config, "read the API key in it"},
		{"--trace", trace, "rewrite the run's record"},
		{"--memory", memory, "read or rewrite what memory has learnt"},
		{"--rules (with --watch)", watchedRules, "rewrite the rules the run obeys"},
	}
	var dir string
	if trace == "" {
		var err error
		if dir, err = defaultTraceDir(getenv, home); err != nil {
			return "", err
		}
		flag := "the trace directory"
		if getenv(EnvTraceDir) != "" {
			flag = EnvTraceDir
		}
		files = append(files, ownFile{flag, dir, "rewrite the run's record"})
	}
	if err := checkPlacement(workdir, files); err != nil {
		return "", err
	}
	return dir, nil
}

// DefaultTraceDir is where spine run puts a trace when --trace is not given (as
// defaultTraceDir says), for the commands that look for traces there.
func DefaultTraceDir() (string, error) { return defaultTraceDir(os.Getenv, os.UserHomeDir) }

// defaultTraceDir is $SPINE_TRACE_DIR, else $XDG_STATE_HOME/spine/traces, else
// ~/.local/state/spine/traces. It is not created here.
func defaultTraceDir(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv(EnvTraceDir); d != "" {
		return d, nil
	}
	if d := getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "spine", "traces"), nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", fmt.Errorf("no directory for the trace: $%s, $XDG_STATE_HOME and $HOME are unset; set one of them or pass --trace FILE (outside the work dir)", EnvTraceDir)
	}
	return filepath.Join(h, ".local", "state", "spine", "traces"), nil
}

// checkPlacement refuses when one of files lies inside workdir, comparing absolute paths
// with symlinks resolved (for a file that does not exist yet, those of its nearest
// existing parent). A work dir that cannot be resolved is left for the sandbox to report.
func checkPlacement(workdir string, files []ownFile) error {
	wd, err := resolvePath(workdir)
	if err != nil {
		return nil
	}
	if fi, err := os.Stat(wd); err != nil || !fi.IsDir() {
		return nil
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		p, err := resolvePath(f.path)
		if err != nil {
			return fmt.Errorf("%s %s: %w", f.flag, f.path, err)
		}
		if inside(wd, p) {
			return &placementError{file: f, resolved: p, workdir: wd}
		}
	}
	return nil
}

// placementError is a file of the run's own inside the work dir.
type placementError struct {
	file              ownFile
	resolved, workdir string
}

func (e *placementError) Error() string {
	at := ""
	if e.resolved != e.file.path {
		at = " (" + e.resolved + ")"
	}
	return fmt.Sprintf("%s %s%s is inside the work dir %s, where the executor's tools could %s; move it out of %s, or choose another --workdir",
		e.file.flag, e.file.path, at, e.workdir, e.file.risk, e.workdir)
}

// resolvePath makes p absolute and resolves the symlinks of its longest existing prefix.
func resolvePath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rest := ""
	for dir := abs; ; dir = filepath.Dir(dir) {
		real, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, os.ErrNotExist) || filepath.Dir(dir) == dir {
			return "", err
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// inside tells whether p is dir or lies below it; both are absolute and clean.
func inside(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
