package spine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/agentspine/spine/internal/linecap"
)

// TraceLine is one decoded line of a trace: the common fields, and the raw line for
// kind-specific decoding.
type TraceLine struct {
	Line int    `json:"-"` // 1-based line number in the file
	Seq  int64  `json:"seq"`
	T    string `json:"t"`
	Kind string `json:"kind"`
	// H is the line's link in the hash chain ("" in an unchained trace). ReadTrace does
	// not check it; VerifyChain does.
	H string `json:"-"`
	// Raw is the line without its newline and without its h field: the event as
	// written, and the content the chain hashes.
	Raw []byte `json:"-"`
}

// Decode unmarshals the whole line into v.
func (l TraceLine) Decode(v any) error { return json.Unmarshal(l.Raw, v) }

// TraceFile is a read trace.
type TraceFile struct {
	Lines []TraceLine
	// Torn is set when the last line was cut short (a process stopped mid-write); the
	// line is not in Lines. Everything before it is intact.
	Torn *TornLine
}

// TornLine describes an incomplete last line.
type TornLine struct {
	Line  int
	Bytes int
}

func (t *TornLine) String() string {
	return fmt.Sprintf("line %d is torn (%d bytes without a newline or valid JSON); read up to line %d", t.Line, t.Bytes, t.Line-1)
}

// TraceError is a malformed trace line that is not the torn last line.
type TraceError struct {
	File string
	Line int
	Msg  string
}

func (e *TraceError) Error() string { return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg) }

// ReadTraceFile reads a trace file; see ReadTrace. It opens only a regular file, so a
// device or a FIFO is an error at once rather than an endless read or a hang.
func ReadTraceFile(path string) (*TraceFile, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(path, f)
}

// ReadTrace reads a JSONL trace. A last line that is incomplete is reported in
// TraceFile.Torn rather than as an error; any other malformed line is a *TraceError
// naming the line, and a line longer than linecap.MaxLine a *linecap.TooLongError. seq
// must increase strictly from line to line. It does not verify the hash chain:
// VerifyChain does, and readers that show or judge a trace call both.
func ReadTrace(name string, r io.Reader) (*TraceFile, error) {
	lr := linecap.New(name, r)
	tf := &TraceFile{}
	var prev int64
	for n := 1; ; n++ {
		got, complete, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return tf, nil
		}
		if err != nil {
			return tf, err
		}
		line := bytes.Clone(bytes.TrimRight(got, "\r\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			if !complete {
				return tf, nil
			}
			return tf, &TraceError{name, n, "empty line"}
		}
		var tl TraceLine
		if derr := json.Unmarshal(line, &tl); derr != nil || tl.Kind == "" {
			if !complete {
				tf.Torn = &TornLine{Line: n, Bytes: len(got)}
				return tf, nil
			}
			msg := "not a trace event (want a JSON object with seq, t and kind)"
			if derr != nil {
				msg = "invalid JSON: " + derr.Error()
			}
			return tf, &TraceError{name, n, msg}
		}
		if tl.Seq <= prev {
			return tf, &TraceError{name, n, fmt.Sprintf("seq %d does not increase (previous %d)", tl.Seq, prev)}
		}
		prev = tl.Seq
		tl.Line = n
		if content, h, ok := splitChained(line); ok {
			tl.Raw, tl.H = content, h
		} else {
			tl.Raw = line
		}
		tf.Lines = append(tf.Lines, tl)
		if !complete {
			// A valid object without its newline: the writer stopped right before the
			// newline. Keep it, it is whole.
			return tf, nil
		}
	}
}
