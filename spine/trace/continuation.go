package trace

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/agentspine/spine/internal/linecap"
)

// Continuation is a recorded trace opened to be continued (a resume, a fork): its
// complete lines, their hash chain verified, a torn last line dropped and said so, and
// why the recording stopped when the trace says. Create writes the continued trace.
type Continuation struct {
	Name  string
	File  *File    // the kept lines' events
	Lines [][]byte // the kept lines as they are on file, newline included
	Head  string   // the h of the last kept line
	Torn  *TornLine
}

// OpenContinuation reads a trace to continue it. The trace must be chained
// (spine-trace/2) and its chain must hold up to its last complete line: a run is
// continued only from lines the chain vouches for. A torn last line is dropped
// (Continuation.Torn, and Dropped says so); any other malformed line is an error.
func OpenContinuation(path string) (*Continuation, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	f, err := Read(path, bytes.NewReader(data))
	if herr := CheckHeader(path, f, err); herr != nil {
		return nil, herr
	}
	if err != nil {
		return nil, err
	}
	rep, cerr := VerifyChain(bytes.NewReader(data))
	if ce, ok := errors.AsType[*ChainError](cerr); ok {
		return nil, fmt.Errorf("%s: the hash chain breaks at %v: a trace is continued only from lines its chain vouches for", path, ce)
	}
	if cerr != nil {
		return nil, fmt.Errorf("%s: %w", path, cerr)
	}
	if !rep.Chained {
		return nil, fmt.Errorf("%s:1: format %s has no hash chain to continue; only %s traces are continued", path, linecap.ExcerptString(rep.Format), Format)
	}
	c := &Continuation{Name: path, File: f, Head: rep.Head, Torn: f.Torn}
	for _, line := range bytes.SplitAfter(data, []byte("\n")) {
		if len(c.Lines) == len(f.Events) {
			break
		}
		c.Lines = append(c.Lines, line)
	}
	if n := len(c.Lines); n > 0 && !bytes.HasSuffix(c.Lines[n-1], []byte("\n")) {
		// A whole last event without its newline: keep it whole, as Read does.
		c.Lines[n-1] = append(bytes.Clone(c.Lines[n-1]), '\n')
	}
	return c, nil
}

// Dropped says what was dropped from the end of the recording, "" when nothing was.
func (c *Continuation) Dropped() string {
	if c.Torn == nil {
		return ""
	}
	return fmt.Sprintf("dropped the torn last line %d (%d bytes): the writer was stopped mid-line; continuing from line %d", c.Torn.Line, c.Torn.Bytes, c.Torn.Line-1)
}

// Last is the last kept line's number and seq.
func (c *Continuation) Last() (line int, seq int64) {
	n := len(c.File.Events)
	return n, c.File.Events[n-1].Seq
}

// Halt is the recording's halt, and whether it has one: a run that halted ended (a
// cancelled one may still be continued; the host decides).
func (c *Continuation) Halt() (Halt, bool) {
	for i := range c.File.Events {
		if h, ok := As[Halt](&c.File.Events[i]); ok {
			return h, true
		}
	}
	return Halt{}, false
}

// Stopped says why the recording stopped, as far as the trace tells: its halt's
// outcome and reason, a torn last line, or the end of the file before any halt.
func (c *Continuation) Stopped() string {
	if h, ok := c.Halt(); ok {
		if h.Reason != "" {
			return fmt.Sprintf("halted: %s (%s)", h.Outcome, h.Reason)
		}
		return "halted: " + h.Outcome
	}
	line, seq := c.Last()
	if c.Torn != nil {
		return fmt.Sprintf("the writer stopped mid-line %d, after line %d (seq %d), before the run's halt", c.Torn.Line, line, seq)
	}
	return fmt.Sprintf("the trace ends at line %d (seq %d) without the run's halt", line, seq)
}

// PrefixError is a continued run that wrote, before its resumed line, a line other
// than the recording's: the continuation departed from what was recorded.
type PrefixError struct {
	Line     int
	Recorded string // the recording's line, excerpted
	Written  string // the continued run's line, excerpted
}

func (e *PrefixError) Error() string {
	return fmt.Sprintf("the continued run's line %d is not the recording's: recorded %s, wrote %s", e.Line, e.Recorded, e.Written)
}

// Create starts the continued trace at path (which must not exist; see
// CreateFileSink). The run writes it from its first line, as a replay does: every line
// before the first resumed line that the recording also has must be the recording's
// byte for byte (a *PrefixError stops the sink otherwise, after writing the lines
// before it), so the new trace's first lines are the recording's and its chain goes on
// from them unbroken.
func (c *Continuation) Create(path string) (*FileSink, error) {
	s, err := CreateFileSink(path)
	if err != nil {
		return nil, err
	}
	s.check = c.prefixCheck()
	return s, nil
}

// prefixCheck holds each line before the first resumed line to the recording's.
func (c *Continuation) prefixCheck() func(int, string, []byte) error {
	past := false
	return func(n int, kind string, line []byte) error {
		if past || kind == KindResumed {
			past = true
			return nil
		}
		if n > len(c.Lines) || bytes.Equal(line, c.Lines[n-1]) {
			return nil
		}
		return &PrefixError{Line: n, Recorded: linecap.Excerpt(bytes.TrimSpace(c.Lines[n-1])), Written: linecap.Excerpt(bytes.TrimSpace(line))}
	}
}
