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
	"syscall"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
)

// ReadFile returns up to the read limit of a regular file inside the root.
//
// The decision is made on the opened file, and the path is looked at twice around the
// open so that nothing swapped in between gets through:
//   - the path is resolved and checked, then looked at without following it (lstat), so
//     that a FIFO or a device is refused before anything opens it — opening a device
//     runs its driver's code;
//   - it is opened through os.Root, which refuses a symlink put in the way meanwhile if
//     it leads out of the root, with O_NONBLOCK, so that a FIFO swapped in after the
//     look does not wait for a writer;
//   - the opened file must be the very file the look saw (same device and inode), a
//     regular file with one link. Without the same-file test a hard link to an outside
//     file, opened and then unlinked from the work dir, would show one link.
//
// It is then read in chunks that honour ctx, and the path is looked at once more: it
// must still name the opened file, with one link, unchanged in its links since the first
// look (its inode change time). A look that races a rename can see the name's old file
// with the link count it has once the rename has taken the name away; a hard link to an
// outside file, renamed away at that moment, would then pass the first look with one
// link. The look after the read sees the name's new file, or the old one named again
// (a link made since, which changed it), and the content is not returned.
func (s *Sandbox) ReadFile(ctx context.Context, p string) (contract.ToolResponse, error) {
	return s.onWall(func() (contract.ToolResponse, error) { return s.readFile(ctx, p) })
}

// readFile is ReadFile on the calling thread: the file tools' wall runs it.
func (s *Sandbox) readFile(ctx context.Context, p string) (contract.ToolResponse, error) {
	if err := ctx.Err(); err != nil {
		return contract.ToolResponse{}, err
	}
	_, rel, _, err := s.resolve(ToolReadFile, p)
	if err != nil {
		return refusal(ToolReadFile, p, err)
	}
	isDir := &ArgsError{Tool: ToolReadFile, Field: "path", Problem: "is a directory; use list_files"}
	changed := &RefusedError{Tool: ToolReadFile, Target: p, Kind: ErrChanged,
		Reason: "the path was replaced while it was being opened; try again"}
	pre, err := s.osRoot.Lstat(rel)
	if err != nil {
		return s.openFailure(ToolReadFile, p, err)
	}
	switch {
	case pre.Mode().Type() == fs.ModeSymlink: // rel has its symlinks resolved: this one is new
		return refusal(ToolReadFile, p, changed)
	case pre.IsDir():
		return refusal(ToolReadFile, p, isDir)
	}
	if err := checkEntry(ToolReadFile, p, pre); err != nil {
		return refusal(ToolReadFile, p, err)
	}
	hook(testHookLooked, rel)
	f, err := s.osRoot.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return s.openFailure(ToolReadFile, p, err)
	}
	defer f.Close()
	hook(testHookOpened, rel)
	fi, err := f.Stat()
	if err != nil {
		return s.ioFailure(ToolReadFile, p, err)
	}
	if !os.SameFile(pre, fi) {
		return refusal(ToolReadFile, p, changed)
	}
	if err := checkEntry(ToolReadFile, p, fi); err != nil {
		return refusal(ToolReadFile, p, err)
	}
	data, err := readCapped(ctx, f, s.opts.MaxRead+1)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return contract.ToolResponse{}, ctxErr
	}
	if err != nil {
		return s.ioFailure(ToolReadFile, p, err)
	}
	hook(testHookRead, rel)
	if post, err := s.osRoot.Lstat(rel); err != nil || !os.SameFile(post, fi) || linkCount(post) != 1 || changeTime(post) != changeTime(pre) {
		return refusal(ToolReadFile, p, changed)
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
// refuses to write through a symlink, even one that stays inside the root, and refuses
// to replace anything but a regular file with one link.
//
// The content goes to a new temporary file in the same directory, which is then renamed
// over the path. Opening the existing file and truncating it would write into its inode,
// which a hard link made after the check can share with a file outside the root, and a
// device or FIFO swapped in after the check would take the open (and the bytes). A
// rename only replaces the directory entry: whatever the path named at that moment —
// a hard link, a symlink, a FIFO — is unlinked from the work dir, and no other path
// sees a byte. It is also atomic, so a reader sees the old content or the new, never
// half. The checks before it are therefore for the model's sake (a clear refusal
// instead of silently cutting a link); the rename is what keeps the outside safe. A
// replaced file keeps its permission bits (one with no write bit is not replaced); a new
// one is created 0644 (less the umask).
func (s *Sandbox) WriteFile(ctx context.Context, p, content string) (contract.ToolResponse, error) {
	return s.onWall(func() (contract.ToolResponse, error) { return s.writeFile(ctx, p, content) })
}

// writeFile is WriteFile on the calling thread: the file tools' wall runs it.
func (s *Sandbox) writeFile(ctx context.Context, p, content string) (contract.ToolResponse, error) {
	if err := ctx.Err(); err != nil {
		return contract.ToolResponse{}, err
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
	isLink := &RefusedError{Tool: ToolWriteFile, Target: p, Kind: ErrSymlink,
		Reason: "the path is a symlink; write to its target's own path instead"}
	if fi, err := os.Lstat(lexical); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return refusal(ToolWriteFile, p, isLink)
	}
	perm, create := fs.FileMode(0o644), true
	switch fi, err := s.osRoot.Lstat(rel); {
	case err == nil && fi.Mode()&fs.ModeSymlink != 0:
		return refusal(ToolWriteFile, p, isLink)
	case err == nil && fi.IsDir():
		return refusal(ToolWriteFile, p, &ArgsError{Tool: ToolWriteFile, Field: "path", Problem: "is a directory"})
	case err == nil:
		if err := checkEntry(ToolWriteFile, p, fi); err != nil {
			return refusal(ToolWriteFile, p, err)
		}
		if fi.Mode().Perm()&0o222 == 0 {
			// Truncating it would fail for anyone but root; a rename would not, so say it.
			return s.ioFailure(ToolWriteFile, p, &fs.PathError{Op: "open", Path: rel, Err: fs.ErrPermission})
		}
		perm, create = fi.Mode().Perm(), false
	case !errors.Is(err, fs.ErrNotExist):
		return s.openFailure(ToolWriteFile, p, err)
	}
	dir := path.Dir(rel)
	if dir != "." {
		if err := s.osRoot.MkdirAll(dir, 0o755); err != nil {
			return s.openFailure(ToolWriteFile, p, err)
		}
	}
	f, tmp, err := s.createTemp(dir, perm)
	if err != nil {
		return s.openFailure(ToolWriteFile, p, err)
	}
	if err := s.giveAway(tmp, f); err != nil {
		f.Close()
		_ = s.osRoot.Remove(tmp)
		return s.openFailure(ToolWriteFile, p, err)
	}
	err = writeChunks(ctx, f, []byte(content))
	if err == nil && !create {
		err = f.Chmod(perm) // the umask applied at creation; a replaced file keeps its bits
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err() // the last moment to give up without a trace
	}
	if err == nil {
		hook(testHookLooked, rel)
		err = s.osRoot.Rename(tmp, rel)
	}
	if err != nil {
		_ = s.osRoot.Remove(tmp)
		if ctxErr := ctx.Err(); ctxErr != nil {
			return contract.ToolResponse{}, ctxErr
		}
		return s.openFailure(ToolWriteFile, p, err)
	}
	return result(ToolWriteFile, p, fmt.Sprintf("wrote %d bytes to %s", len(content), rel)), nil
}

// ListFiles lists a directory inside the root: entries whose base name matches pattern
// (path.Match syntax; "" matches all), recursively when asked, sorted, at most the list
// limit. Paths are relative to the root, so they can be passed to the other tools;
// directories end in "/", symlinks in "@"; symlinks are not followed, and only
// directories are ever opened (O_DIRECTORY), so a FIFO in the tree cannot block it.
func (s *Sandbox) ListFiles(ctx context.Context, dir, pattern string, recursive bool) (contract.ToolResponse, error) {
	return s.onWall(func() (contract.ToolResponse, error) { return s.listFiles(ctx, dir, pattern, recursive) })
}

// listFiles is ListFiles on the calling thread: the file tools' wall runs it.
func (s *Sandbox) listFiles(ctx context.Context, dir, pattern string, recursive bool) (contract.ToolResponse, error) {
	target := listTarget(dir, pattern, recursive)
	if err := ctx.Err(); err != nil {
		return contract.ToolResponse{}, err
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
	entries := firstEntries{max: s.opts.MaxList}
	if err := s.walk(ctx, rel, pattern, recursive, &entries); err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return contract.ToolResponse{}, ctxErr
		}
		if errors.Is(err, syscall.ENOTDIR) {
			err = fmt.Errorf("%s is not a directory", dir)
		}
		return s.openFailure(ToolListFiles, target, err)
	}
	list, total := entries.sorted(), entries.total
	// The listing is cut at the list limit and at the limit of a tool's output, whichever
	// comes first: a thousand long paths can be more than a tool may return.
	var b strings.Builder
	shown := 0
	for _, e := range list {
		if b.Len()+len(e)+1 > contract.MaxToolOutput {
			break
		}
		b.WriteString(e)
		b.WriteByte('\n')
		shown++
	}
	text := b.String()
	if total == 0 {
		text = "(no matching entries)"
	}
	r := result(ToolListFiles, target, strings.TrimSuffix(text, "\n"))
	if total > shown {
		r.Output = appendLine(r.Output, fmt.Sprintf("[%d more entries not shown]", total-shown))
		r.Evidence = contract.FormatToolCall(ToolListFiles, target, r.Output)
		r.Truncated = true
	}
	return r, nil
}

// walk appends the entries of directory rel that match pattern to out, descending into
// subdirectories when recursive. An error opening rel itself is returned; an unreadable
// subdirectory is skipped.
// The directory is read a batch at a time and only the first entries kept (out), so a
// directory of a million entries costs no more memory than one of a thousand; its
// subdirectories are walked after it is closed, so the walk holds one descriptor.
func (s *Sandbox) walk(ctx context.Context, rel, pattern string, recursive bool, out *firstEntries) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	d, err := s.osRoot.OpenFile(rel, os.O_RDONLY|oDirectory|oNonblock, 0)
	if err != nil {
		return err
	}
	var subdirs []string
	for {
		batch, err := d.ReadDir(readDirBatch)
		for _, e := range batch {
			p := path.Join(rel, e.Name())
			if ok, _ := path.Match(pattern, e.Name()); ok {
				out.add(displayEntry(p, e))
			}
			if recursive && e.IsDir() {
				subdirs = append(subdirs, p)
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(batch) == 0) {
			break
		}
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			d.Close()
			return err
		}
	}
	d.Close()
	slices.Sort(subdirs)
	for _, p := range subdirs {
		// An unreadable subdirectory is skipped, not fatal; a cancelled call is.
		if err := s.walk(ctx, p, pattern, recursive, out); err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
	}
	return nil
}

// readDirBatch is how many entries a listing reads from a directory at a time.
const readDirBatch = 512

// firstEntries keeps the max smallest entries added (a max-heap: the largest kept is on
// top, and is what a smaller newcomer replaces) and counts them all.
type firstEntries struct {
	max   int
	heap  []string
	total int
}

func (f *firstEntries) add(e string) {
	f.total++
	switch {
	case len(f.heap) < f.max:
		f.heap = append(f.heap, e)
		f.up(len(f.heap) - 1)
	case f.max > 0 && e < f.heap[0]:
		f.heap[0] = e
		f.down(0)
	}
}

func (f *firstEntries) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if f.heap[parent] >= f.heap[i] {
			return
		}
		f.heap[parent], f.heap[i] = f.heap[i], f.heap[parent]
		i = parent
	}
}

func (f *firstEntries) down(i int) {
	for {
		largest := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(f.heap) && f.heap[c] > f.heap[largest] {
				largest = c
			}
		}
		if largest == i {
			return
		}
		f.heap[i], f.heap[largest] = f.heap[largest], f.heap[i]
		i = largest
	}
}

// sorted is the kept entries in order.
func (f *firstEntries) sorted() []string {
	out := slices.Clone(f.heap)
	slices.Sort(out)
	return out
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

// displayEntry is one line of a listing. A name may hold any byte but "/" and NUL: one
// holding a newline would read as two entries, one holding an escape sequence would be
// obeyed where the listing is shown, so the name is escaped as a terminal shows text.
func displayEntry(name string, d fs.DirEntry) string {
	name = termtext.Line(name)
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
func (s *Sandbox) ioFailure(tool, target string, err error) (contract.ToolResponse, error) {
	msg := s.scrubRoot(err.Error())
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		msg = fmt.Sprintf("%s %s: %v", pe.Op, target, pe.Err)
	case errors.As(err, &le): // a rename: name the target, not write_file's temporary file
		msg = fmt.Sprintf("%s %s: %v", le.Op, target, le.Err)
	}
	if errors.Is(err, os.ErrNotExist) {
		msg = fmt.Sprintf("%s: no such file or directory", target)
	}
	r := result(tool, target, "error: "+msg)
	r.ExitCode = 1
	return r, fmt.Errorf("%s %q: %s", tool, target, msg)
}
