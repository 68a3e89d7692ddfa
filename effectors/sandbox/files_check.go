package sandbox

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/fsmode"
)

// chunk is how much the file tools read or write between two looks at the context, so
// that a cancelled call stops within one chunk.
const chunk = 64 << 10

// Test hooks, nil outside tests: testHookLooked runs after a file tool's checks of a
// path and before it acts on it (read_file's open, write_file's rename),
// testHookOpened after read_file's open and before its check of the opened file,
// testHookRead after read_file's read and before its last look at the path, so that a
// test can swap the path at the worst moment instead of hoping a race hits it.
var testHookLooked, testHookOpened, testHookRead func(rel string)

func hook(h func(string), rel string) {
	if h != nil {
		// The hooks play an attacker acting meanwhile, elsewhere: not on the file tools'
		// restricted thread, which a locked goroutine keeps to itself.
		done := make(chan struct{})
		go func() { defer close(done); h(rel) }()
		<-done
	}
}

// checkEntry refuses what a file tool must not touch: anything but a regular file, and a
// regular file with more than one hard link (another link may lie outside the root, so
// its content is not the work dir's to read or replace). The caller has already
// refused directories with its own wording.
func checkEntry(tool, target string, fi fs.FileInfo) error {
	if t := fi.Mode().Type(); t != 0 {
		return &RefusedError{Tool: tool, Target: target, Kind: ErrNotRegular,
			Reason: fmt.Sprintf("the path is %s, not a regular file; %s %s only regular files", fsmode.Name(t), tool, toolVerb(tool))}
	}
	if n := linkCount(fi); n > 1 {
		return &RefusedError{Tool: tool, Target: target, Kind: ErrHardlink,
			Reason: fmt.Sprintf("the file has %d hard links; another link may be a path outside the sandbox root, so %s %s only files with one link", n, tool, toolVerb(tool))}
	}
	return nil
}

func toolVerb(tool string) string {
	if tool == ToolWriteFile {
		return "replaces"
	}
	return "reads"
}

// escapeMessage is the text of os.Root's error for a path that leaves the root. It is
// not exported; when the path passed resolve, it means a symlink was put in its way
// after the check, and that is a refusal rather than an I/O error.
const escapeMessage = "path escapes from parent"

// openFailure reports an error from opening a path inside the root.
func (s *Sandbox) openFailure(tool, target string, err error) (contract.ToolResponse, error) {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Err.Error() == escapeMessage {
		return refusal(tool, target, &RefusedError{Tool: tool, Target: target, Kind: ErrOutsideRoot,
			Reason: "the path leads through a symlink to a place outside the sandbox root"})
	}
	return s.ioFailure(tool, target, err)
}

// readCapped reads at most limit bytes of r, looking at ctx between chunks.
func readCapped(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	var data []byte
	buf := make([]byte, min(int64(chunk), limit))
	for int64(len(data)) < limit {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		n, err := r.Read(buf[:min(int64(len(buf)), limit-int64(len(data)))])
		data = append(data, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// writeChunks writes all of data to w, looking at ctx between chunks.
func writeChunks(ctx context.Context, w io.Writer, data []byte) error {
	for len(data) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := w.Write(data[:min(len(data), chunk)])
		if err != nil {
			return err
		}
		data = data[n:]
	}
	return ctx.Err()
}

// createTemp creates a new empty file in dir (relative to the root) for write_file to
// fill and rename. O_EXCL never follows a symlink, and a name taken by someone else is
// retried with another.
func (s *Sandbox) createTemp(dir string, perm fs.FileMode) (*os.File, string, error) {
	for range 8 {
		name := dir + "/.spine-write-" + rand.Text()[:16] + ".tmp"
		if dir == "." {
			name = name[2:]
		}
		f, err := s.osRoot.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNonblock, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", errors.New("cannot find a free name for a temporary file")
}
