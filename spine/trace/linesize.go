package trace

import (
	"fmt"

	"github.com/agentspine/spine/contract"
)

// MaxLine is the longest line, newline excluded, that a sink writes and Read accepts:
// one constant for both sides, so that a run never writes a trace its readers refuse.
const MaxLine = contract.MaxTraceLine

// LineTooLongError is an event whose line would be longer than MaxLine. The sink
// refuses it and writes nothing: the trace stays readable, and its chain continues from
// the line before.
type LineTooLongError struct {
	Kind string
	Seq  int64
	Size int // the line's length, newline excluded
	Max  int
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("trace: %s event %d would be a line of %d bytes, over the %d bytes a trace line may have; it was not written",
		e.Kind, e.Seq, e.Size, e.Max)
}

// checkLineSize refuses a line of size bytes (newline excluded) over MaxLine.
func checkLineSize(e *Event, size int) error {
	if size > MaxLine {
		return &LineTooLongError{Kind: e.Kind, Seq: e.Seq, Size: size, Max: MaxLine}
	}
	return nil
}
