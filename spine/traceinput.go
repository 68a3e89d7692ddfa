package spine

import (
	"fmt"
	"io"
	"os"

	"github.com/agentspine/spine/internal/linecap"
)

// OpenRegular opens a file of outside input (a trace, a memory import) for reading. It
// opens only a regular file (a symlink is followed and its target checked), without
// blocking, so a FIFO, a device such as /dev/zero or a directory is an error naming
// what it is, at once.
func OpenRegular(path string) (*os.File, error) { return openRegularNonBlocking(path) }

// ReadTraceBytes reads a whole trace file that OpenRegular accepts, for readers that
// pass over it more than once (the chain check, then the decoder).
func ReadTraceBytes(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// CheckTraceHeader says whether a read trace is a spine trace at all: its first line a
// header of a format this build reads. An empty file, a file without a header or a
// JSONL file of another program is an error naming the file and what was expected, so
// that a viewer or the Auditor does not show nothing and report success. readErr is
// ReadTrace's error: one on the first line is returned with what was expected.
func CheckTraceHeader(name string, tf *TraceFile, readErr error) error {
	want := fmt.Sprintf("expected a spine trace: the first line must be a header with format %s", TraceFormat)
	if len(tf.Lines) == 0 && readErr != nil {
		return fmt.Errorf("%w; %s", readErr, want)
	}
	if len(tf.Lines) == 0 {
		if tf.Torn != nil {
			return fmt.Errorf("%s: %s; its only line is torn (%d bytes)", name, want, tf.Torn.Bytes)
		}
		return fmt.Errorf("%s: the file is empty; %s", name, want)
	}
	first := tf.Lines[0]
	if first.Kind != EvHeader {
		return fmt.Errorf("%s:%d: %s, not a %s event", name, first.Line, want, linecap.ExcerptString(first.Kind))
	}
	var h struct {
		Format string `json:"format"`
	}
	if first.Decode(&h) != nil || (h.Format != TraceFormat && h.Format != TraceFormatUnchained) {
		return fmt.Errorf("%s:%d: %s (or the older %s), not format %s", name, first.Line, want, TraceFormatUnchained, linecap.ExcerptString(h.Format))
	}
	return nil
}

// Incomplete says why a trace is an incomplete recording, "" when it is not: its last
// line is torn (a writer stopped mid-line), or the engine's loop started and the trace
// ends without its halt (a writer stopped, or the file was cut, at a line boundary).
// Both are one verdict: the run's end is not in the recording, and everything before
// the cut is intact. A trace of messages only (no loop) has no halt to miss.
func (tf *TraceFile) Incomplete() string {
	if tf.Torn != nil {
		return "incomplete recording: " + tf.Torn.String()
	}
	looped := false
	for _, l := range tf.Lines {
		switch l.Kind {
		case EvHalt:
			return ""
		case EvTransition, EvEffectorCall, EvConflictSet:
			looped = true
		}
	}
	if !looped {
		return ""
	}
	return fmt.Sprintf("incomplete recording: the trace ends at line %d without the run's halt event", tf.Lines[len(tf.Lines)-1].Line)
}
