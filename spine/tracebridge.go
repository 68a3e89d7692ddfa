package spine

import (
	"encoding/json"
	"io"
	"time"

	"github.com/agentspine/spine/spine/trace"
)

// A bridge for readers written before package trace: they see a trace as lines with
// their raw JSON and decode each themselves. New code reads with trace.Read or
// trace.ReadFile, which decode every body by kind.

// TraceLine is one read line of a trace.
//
// Deprecated: use trace.Event, whose Body is already decoded.
type TraceLine struct {
	Line int    // 1-based line number in the file
	Seq  int64  // the envelope's seq
	T    string // the envelope's t
	Kind string
	H    string // the line's link in the hash chain, "" in an unchained trace
	Raw  []byte // the line without its newline and without its h field
}

// Decode unmarshals the whole line into v.
func (l TraceLine) Decode(v any) error { return json.Unmarshal(l.Raw, v) }

// TraceFile is a read trace.
//
// Deprecated: use trace.File.
type TraceFile struct {
	Lines []TraceLine
	Torn  *TornLine
	file  *trace.File
}

// File is the trace as package trace read it.
func (tf *TraceFile) File() *trace.File { return tf.file }

// Incomplete says why a trace is an incomplete recording; see trace.File.Incomplete.
func (tf *TraceFile) Incomplete() string { return tf.file.Incomplete() }

func bridgeFile(name string, f *trace.File) *TraceFile {
	if f == nil {
		f = &trace.File{Name: name}
	}
	tf := &TraceFile{Torn: f.Torn, file: f, Lines: make([]TraceLine, len(f.Events))}
	for i, e := range f.Events {
		tf.Lines[i] = TraceLine{Line: e.Line, Seq: e.Seq, T: e.Time.UTC().Format(time.RFC3339Nano), Kind: e.Kind, H: e.H, Raw: e.Raw}
	}
	return tf
}

// ReadTrace reads a JSONL trace; see trace.Read.
//
// Deprecated: use trace.Read.
func ReadTrace(name string, r io.Reader) (*TraceFile, error) {
	f, err := trace.Read(name, r)
	return bridgeFile(name, f), err
}

// ReadTraceFile reads a trace file; see trace.ReadFileEvents.
//
// Deprecated: use trace.ReadFile or trace.ReadFileEvents.
func ReadTraceFile(path string) (*TraceFile, error) {
	f, err := trace.ReadFileEvents(path)
	if f == nil {
		return nil, err
	}
	return bridgeFile(path, f), err
}

// CheckTraceHeader says whether a read trace is a spine trace; see trace.CheckHeader.
//
// Deprecated: use trace.ReadFile, which checks the header, or trace.CheckHeader.
func CheckTraceHeader(name string, tf *TraceFile, readErr error) error {
	return trace.CheckHeader(name, tf.file, readErr)
}
