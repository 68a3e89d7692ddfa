package ggs

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"

	"github.com/agentspine/spine/internal/linecap"
)

// StreamHooks receive what a stream run reports beside its output. Both are called with
// the output written so far already flushed, so that the two streams interleave as the
// input did.
type StreamHooks struct {
	// Bad is called for a line that is not decided: it could not be decoded, the Solver
	// refused it (an *EvictedError among others), or its output could not be encoded.
	Bad func(line int, err error)
	// Evicted is called for each task evicted, or forgotten, after a line.
	Evicted func(Eviction)
}

// StreamError is a failure to read the input or to write the output: the run stops.
type StreamError struct {
	Write bool // false: reading the input
	Err   error
}

func (e *StreamError) Error() string {
	if e.Write {
		return "writing: " + e.Err.Error()
	}
	return "reading: " + e.Err.Error()
}

func (e *StreamError) Unwrap() error { return e.Err }

// Run reads one bus message per line of in (at most linecap.MaxLine bytes), decides each,
// and writes one output message per decided line to out. A blank line is skipped; a line
// that is not decided goes to hooks.Bad and the run goes on. Output is buffered and
// flushed whenever the input has nothing more buffered, so a message that arrives alone
// is answered at once. Run stops at the end of the input, at a read or write error (a
// *StreamError), or when ctx is done (ctx's error).
func (f *Filter) Run(ctx context.Context, in io.Reader, out io.Writer, hooks StreamHooks) error {
	w := bufio.NewWriterSize(out, 64<<10)
	lines := linecap.New("", flushingReader{r: in, w: w})
	dec := &messageDecoder{scan: reportScan{sh: lineShare{on: true, unread: true}}}
	var buf []byte
	var ow outputWriter
	flushed := func() error {
		if err := w.Flush(); err != nil {
			return &StreamError{Write: true, Err: err}
		}
		return nil
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return errors.Join(flushed(), err)
		}
		line, complete, err := lines.Next()
		switch {
		case errors.Is(err, io.EOF):
			return flushed()
		case err != nil:
			var se *StreamError
			if errors.As(err, &se) { // the flush before a read failed
				return err
			}
			return errors.Join(flushed(), &StreamError{Err: err})
		}
		if text := bytes.TrimSpace(line); len(text) > 0 {
			var derr error
			if m, err := dec.decode(text); err != nil {
				derr = err
			} else if o, err := f.handle(ctx, n, m, f.s.handleChecked); err != nil {
				derr = err
			} else if buf, err = ow.append(buf[:0], o); err != nil {
				derr = err
			} else if _, err := w.Write(buf); err != nil {
				return &StreamError{Write: true, Err: err}
			}
			if derr != nil && hooks.Bad != nil {
				if err := flushed(); err != nil {
					return err
				}
				hooks.Bad(n, derr)
			}
		}
		if !complete && len(line) == 0 {
			return flushed() // no line n: the input ended with a newline
		}
		if ev := f.Expire(n); len(ev) > 0 && hooks.Evicted != nil {
			if err := flushed(); err != nil {
				return err
			}
			for _, e := range ev {
				hooks.Evicted(e)
			}
		}
		if !complete {
			return flushed()
		}
	}
}

// flushingReader flushes the output before each read of the input: the line reader reads
// only when its buffer is empty, that is before it might wait for more input.
type flushingReader struct {
	r io.Reader
	w *bufio.Writer
}

func (f flushingReader) Read(p []byte) (int, error) {
	if err := f.w.Flush(); err != nil {
		return 0, &StreamError{Write: true, Err: err}
	}
	return f.r.Read(p)
}
