package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// ReadFile returns up to the read limit of a file inside the root.
func (s *Sandbox) ReadFile(ctx context.Context, p string) (ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return ToolResult{}, err
	}
	_, rel, _, err := s.resolve(ToolReadFile, p)
	if err != nil {
		return refusal(ToolReadFile, p, err)
	}
	f, err := s.osRoot.Open(rel)
	if err != nil {
		return s.ioFailure(ToolReadFile, p, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return s.ioFailure(ToolReadFile, p, err)
	}
	if fi.IsDir() {
		return refusal(ToolReadFile, p, &ArgsError{Tool: ToolReadFile, Field: "path", Problem: "is a directory; use list_files"})
	}
	data, err := io.ReadAll(io.LimitReader(f, s.opts.MaxRead+1))
	if err != nil {
		return s.ioFailure(ToolReadFile, p, err)
	}
	truncated := int64(len(data)) > s.opts.MaxRead
	text := strings.ToValidUTF8(string(data[:min(int64(len(data)), s.opts.MaxRead)]), "\uFFFD")
	if truncated {
		text = appendLine(text, fmt.Sprintf("[file truncated: showing %d of %d bytes]", s.opts.MaxRead, fi.Size()))
	}
	r := result(ToolReadFile, p, text)
	r.Truncated = truncated
	return r, nil
}

// WriteFile writes content to a file inside the root, creating parent directories. It
// refuses to write through a symlink, even one that stays inside the root.
func (s *Sandbox) WriteFile(ctx context.Context, p, content string) (ToolResult, error) {
	if err := ctx.Err(); err != nil {
		return ToolResult{}, err
	}
	if len(content) > s.opts.MaxWrite {
		return refusal(ToolWriteFile, p, &ArgsError{Tool: ToolWriteFile, Field: "content",
			Problem: fmt.Sprintf("%d bytes exceed the %d-byte write limit", len(content), s.opts.MaxWrite)})
	}
	_, rel, lexical, err := s.resolve(ToolWriteFile, p)
	if err != nil {
		return refusal(ToolWriteFile, p, err)
	}
	if rel == "." {
		return refusal(ToolWriteFile, p, &ArgsError{Tool: ToolWriteFile, Field: "path", Problem: "names the root directory, not a file"})
	}
	if fi, err := os.Lstat(lexical); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return refusal(ToolWriteFile, p, &RefusedError{Tool: ToolWriteFile, Target: p, Kind: ErrSymlink,
			Reason: "the path is a symlink; write to its target's own path instead"})
	}
	if fi, err := s.osRoot.Lstat(rel); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return refusal(ToolWriteFile, p, &RefusedError{Tool: ToolWriteFile, Target: p, Kind: ErrSymlink,
				Reason: "the path is a symlink; write to its target's own path instead"})
		}
		if fi.IsDir() {
			return refusal(ToolWriteFile, p, &ArgsError{Tool: ToolWriteFile, Field: "path", Problem: "is a directory"})
		}
	}
	if dir := path.Dir(rel); dir != "." {
		if err := s.osRoot.MkdirAll(dir, 0o755); err != nil {
			return s.ioFailure(ToolWriteFile, p, err)
		}
	}
	if err := s.osRoot.WriteFile(rel, []byte(content), 0o644); err != nil {
		return s.ioFailure(ToolWriteFile, p, err)
	}
	return result(ToolWriteFile, p, fmt.Sprintf("wrote %d bytes to %s", len(content), rel)), nil
}

// ListFiles lists a directory inside the root: entries whose base name matches pattern
// (path.Match syntax; "" matches all), recursively when asked, sorted, at most the list
// limit. Paths are relative to the root, so they can be passed to the other tools;
// directories end in "/", symlinks in "@"; symlinks are not followed.
func (s *Sandbox) ListFiles(ctx context.Context, dir, pattern string, recursive bool) (ToolResult, error) {
	target := listTarget(dir, pattern, recursive)
	if err := ctx.Err(); err != nil {
		return ToolResult{}, err
	}
	if pattern == "" {
		pattern = "*"
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return refusal(ToolListFiles, target, &ArgsError{Tool: ToolListFiles, Field: "pattern", Problem: "not a valid glob: " + err.Error()})
	}
	if dir == "" {
		dir = "."
	}
	_, rel, _, err := s.resolve(ToolListFiles, dir)
	if err != nil {
		return refusal(ToolListFiles, target, err)
	}
	var entries []string
	fsys := s.osRoot.FS()
	walkErr := fs.WalkDir(fsys, rel, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == rel {
				return err
			}
			return nil // an unreadable subdirectory is skipped, not fatal
		}
		if p == rel {
			if !d.IsDir() {
				return fmt.Errorf("%s is not a directory", dir)
			}
			return nil
		}
		if ok, _ := path.Match(pattern, d.Name()); ok {
			entries = append(entries, displayEntry(p, d))
		}
		if d.IsDir() && !recursive {
			return fs.SkipDir
		}
		return nil
	})
	if walkErr != nil {
		return s.ioFailure(ToolListFiles, target, walkErr)
	}
	slices.Sort(entries)
	total := len(entries)
	var b strings.Builder
	for i, e := range entries {
		if i == s.opts.MaxList {
			break
		}
		b.WriteString(e)
		b.WriteByte('\n')
	}
	text := b.String()
	if total == 0 {
		text = "(no matching entries)"
	}
	r := result(ToolListFiles, target, strings.TrimSuffix(text, "\n"))
	if total > s.opts.MaxList {
		r.Output = appendLine(r.Output, fmt.Sprintf("[%d more entries not shown]", total-s.opts.MaxList))
		r.Evidence = FormatToolCall(ToolListFiles, target, r.Output)
		r.Truncated = true
	}
	return r, nil
}

// listTarget is the evidence target of a listing: a glob-like path.
func listTarget(dir, pattern string, recursive bool) string {
	if dir == "" {
		dir = "."
	}
	if pattern == "" {
		pattern = "*"
	}
	if recursive {
		return path.Join(dir, "**", pattern)
	}
	return path.Join(dir, pattern)
}

func displayEntry(name string, d fs.DirEntry) string {
	switch {
	case d.Type()&fs.ModeSymlink != 0:
		return name + "@"
	case d.IsDir():
		return name + "/"
	}
	return name
}

// ioFailure reports an operating-system error of a file tool as a result and an error,
// with the root's absolute path shortened to "<root>".
func (s *Sandbox) ioFailure(tool, target string, err error) (ToolResult, error) {
	msg := s.scrubRoot(err.Error())
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = fmt.Sprintf("%s %s: %v", pe.Op, target, pe.Err)
	}
	if errors.Is(err, os.ErrNotExist) {
		msg = fmt.Sprintf("%s: no such file or directory", target)
	}
	r := result(tool, target, "error: "+msg)
	r.ExitCode = 1
	return r, fmt.Errorf("%s %q: %s", tool, target, msg)
}
