package trace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/agentspine/spine/internal/linecap"
)

// File is a read trace.
type File struct {
	Name   string
	Events []Event
	// Torn is set when the last line was cut short (a process stopped mid-write); the
	// line is not in Events. Everything before it is intact.
	Torn *TornLine
	// Chain is the hash chain as VerifyChain found it, and ChainErr its error: a
	// *ChainError for the first line that breaks it (see Broken). Set by ReadFile only.
	Chain    ChainReport
	ChainErr error
}

// TornLine describes an incomplete last line.
type TornLine struct {
	Line  int
	Bytes int
}

func (t *TornLine) String() string {
	return fmt.Sprintf("line %d is torn (%d bytes without a newline or valid JSON); read up to line %d", t.Line, t.Bytes, t.Line-1)
}

// Error is a malformed trace line that is not the torn last line.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// Header returns the trace's header, and false when its first event is not one.
func (f *File) Header() (Header, bool) {
	if len(f.Events) == 0 {
		return Header{}, false
	}
	return As[Header](&f.Events[0])
}

// Broken is the first line that breaks the hash chain, nil when it holds, the trace is
// unchained or the chain was not checked.
func (f *File) Broken() *ChainError {
	ce, _ := errors.AsType[*ChainError](f.ChainErr)
	return ce
}

// ReadFile reads a trace file whole and checks it: it opens only a regular file (so a
// device or a FIFO is an error at once rather than an endless read or a hang), decodes
// every line (see Read), requires a header of a format this build reads (CheckHeader)
// and verifies the hash chain into File.Chain and File.ChainErr. A chain that breaks
// is not an error of ReadFile: the trace was read, and what to do with lines that are
// not vouched for is the reader's call.
//
// The error is the first that applies: the file could not be opened, it is not a spine
// trace (a *NotATraceError; the chain is then not checked), or a line is malformed
// (then File holds the events before it).
func ReadFile(path string) (*File, error) {
	data, err := ReadBytes(path)
	if err != nil {
		return nil, err
	}
	f, err := Read(path, bytes.NewReader(data))
	if herr := CheckHeader(path, f, err); herr != nil {
		return f, herr
	}
	f.Chain, f.ChainErr = VerifyChain(bytes.NewReader(data))
	return f, err
}

// ReadFileEvents reads a trace file that OpenRegular accepts with Read alone: no
// header check, no chain verification. It is for readers that check those themselves
// (replay) or read fragments of traces.
func ReadFileEvents(path string) (*File, error) {
	r, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return Read(path, r)
}

// Read decodes a JSONL trace, each line into its envelope and its kind's body. A last
// line that is incomplete is reported in File.Torn rather than as an error; any other
// malformed line is an *Error naming the line and what was expected, and a line longer
// than linecap.MaxLine a *linecap.TooLongError. seq must increase strictly from line to
// line. The returned File holds the events before an error. Read does not verify the
// hash chain (VerifyChain does) nor require a header (CheckHeader does). name is used
// in errors.
func Read(name string, r io.Reader) (*File, error) {
	lr := linecap.New(name, r)
	f := &File{Name: name}
	var prev int64
	for n := 1; ; n++ {
		got, complete, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return f, err
		}
		line := bytes.Clone(bytes.TrimRight(got, "\r\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			if !complete {
				return f, nil
			}
			return f, &Error{name, n, "empty line"}
		}
		e, err := DecodeLine(line)
		if err != nil {
			le := err.(*LineError)
			if le.envelope && !complete {
				f.Torn = &TornLine{Line: n, Bytes: len(got)}
				return f, nil
			}
			return f, &Error{name, n, le.msg}
		}
		if e.Seq <= prev {
			return f, &Error{name, n, fmt.Sprintf("seq %d does not increase (previous %d)", e.Seq, prev)}
		}
		prev = e.Seq
		e.Line = n
		f.Events = append(f.Events, e)
		if !complete {
			// A valid object without its newline: the writer stopped right before the
			// newline. Keep it, it is whole.
			return f, nil
		}
	}
}

// LineError is why DecodeLine could not decode a line; it is always DecodeLine's error.
type LineError struct {
	msg      string
	envelope bool // the line is not an event at all (as a torn line is not)
}

func (e *LineError) Error() string { return e.msg }

// DecodeLine decodes one trace line (without its newline; with or without its h) into
// an event: the envelope, the body decoded by kind (see DecodeBody), Raw and H. Line is
// left 0. The error says what was expected: a JSON object with seq, t and kind, t an
// RFC 3339 time, a body of the kind's shape. It is Read's decoder, for readers that get
// lines one at a time (a sink rendering a run as it is written).
func DecodeLine(line []byte) (Event, error) {
	var env struct {
		Seq  int64  `json:"seq"`
		T    string `json:"t"`
		Kind string `json:"kind"`
	}
	if derr := json.Unmarshal(line, &env); derr != nil || env.Kind == "" {
		msg := "not a trace event (want a JSON object with seq, t and kind)"
		if derr != nil {
			msg = "invalid JSON: " + derr.Error()
		}
		return Event{}, &LineError{linecap.BoundQuotes(msg), true}
	}
	at, terr := time.Parse(time.RFC3339Nano, env.T)
	if terr != nil {
		return Event{}, &LineError{fmt.Sprintf("t %s is not an RFC 3339 time (want e.g. \"2026-01-01T00:00:00.001Z\")", linecap.ExcerptString(env.T)), false}
	}
	e := Event{Seq: env.Seq, Time: at, Kind: env.Kind}
	if content, h, ok := splitChained(line); ok {
		e.Raw, e.H = content, h
	} else {
		e.Raw = line
	}
	body, berr := DecodeBody(env.Kind, e.Raw)
	if berr != nil {
		// Only a known kind's body fails to decode, so the kind needs no quoting.
		return Event{}, &LineError{linecap.BoundQuotes(fmt.Sprintf("%s event: %v", env.Kind, berr)), false}
	}
	e.Body = body
	return e, nil
}

// CheckHeader says whether a read trace is a spine trace at all: its first line a
// header of a format this build reads. An empty file, a file without a header or a
// JSONL file of another program is an error naming the file and what was expected, so
// that a viewer or the Auditor does not show nothing and report success. readErr is
// Read's error: one on the first line is returned with what was expected.
func CheckHeader(name string, f *File, readErr error) error {
	want := fmt.Sprintf("expected a spine trace: the first line must be a header with format %s", Format)
	if f == nil || len(f.Events) == 0 {
		switch {
		case readErr != nil:
			return &NotATraceError{fmt.Sprintf("%v; %s", readErr, want), readErr}
		case f != nil && f.Torn != nil:
			return &NotATraceError{fmt.Sprintf("%s: %s; its only line is torn (%d bytes)", name, want, f.Torn.Bytes), nil}
		}
		return &NotATraceError{fmt.Sprintf("%s: the file is empty; %s", name, want), nil}
	}
	first := &f.Events[0]
	if first.Kind != KindHeader {
		return &NotATraceError{fmt.Sprintf("%s:%d: %s, not a %s event", name, first.Line, want, linecap.ExcerptString(first.Kind)), nil}
	}
	h, _ := As[Header](first)
	if h.Format != Format && h.Format != FormatUnchained {
		return &NotATraceError{fmt.Sprintf("%s:%d: %s (or the older %s), not format %s", name, first.Line, want, FormatUnchained, linecap.ExcerptString(h.Format)), nil}
	}
	return nil
}

// NotATraceError is CheckHeader's verdict: the input is not a spine trace (empty,
// header-less, of a foreign format or not JSON lines at all). It wraps the reader's
// error on the first line, if any.
type NotATraceError struct {
	msg string
	err error
}

func (e *NotATraceError) Error() string { return e.msg }
func (e *NotATraceError) Unwrap() error { return e.err }

// Incomplete says why a trace is an incomplete recording, "" when it is not: its last
// line is torn (a writer stopped mid-line), or the engine's loop started and the trace
// ends without its halt (a writer stopped, or the file was cut, at a line boundary).
// Both are one verdict: the run's end is not in the recording, and everything before
// the cut is intact. A trace of messages only (no loop) has no halt to miss.
func (f *File) Incomplete() string {
	if f.Torn != nil {
		return "incomplete recording: " + f.Torn.String()
	}
	looped := false
	for i := range f.Events {
		switch f.Events[i].Kind {
		case KindHalt:
			return ""
		case KindTransition, KindEffectorCall, KindConflictSet:
			looped = true
		}
	}
	if !looped {
		return ""
	}
	return fmt.Sprintf("incomplete recording: the trace ends at line %d without the run's halt event", f.Events[len(f.Events)-1].Line)
}
