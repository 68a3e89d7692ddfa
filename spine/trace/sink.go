package trace

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Sink receives trace events in seq order. Write must not keep e or anything it points
// to after it returns: the engine reuses event bodies between cycles.
type Sink interface {
	Write(e *Event) error
	// Flush hands every event written so far to the sink's medium (for a file, the
	// kernel: see FileSink). The engine calls it at each cycle boundary and, in a live
	// run, after each exchange, so it must be cheap when there is little to write.
	Flush() error
}

// Discard is a Sink that drops every event, for benchmarks and callers that need no
// trace.
var Discard Sink = discard{}

type discard struct{}

func (discard) Write(*Event) error { return nil }
func (discard) Flush() error       { return nil }

// chained is what every sink that writes lines holds: the chain encoder, and the lock
// that keeps its lines in order.
type chained struct {
	mu    sync.Mutex
	chain chainEncoder
}

// write encodes the event and writes its chained line to w.
func (c *chained) write(e *Event, w io.Writer) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	line, err := c.chain.encode(e)
	if err != nil {
		return err
	}
	_, err = w.Write(line)
	return err
}

// FileSink is an append-only trace file, written through a buffer. It refuses to open a
// file that already exists, so a recorded trace is never appended to by a second run,
// truncated or rewritten, and holds an exclusive lock (flock) on it until Close, so a
// second writer that asks for the lock is refused while the run writes.
//
// Lines reach the file (write(2)) on Flush, and when the buffer holds bufferSize bytes:
// what was flushed survives the process being killed, as the kernel holds it; only
// Close syncs it (fsync), so a machine crash may still lose what came after the last
// sync. The sink keeps track of what reached the file, not only what it encoded: after
// a failed write (a full disk) Written says which complete line the file ends with.
type FileSink struct {
	chained
	w      io.Writer // the file, or a writer that stands in for it in tests
	f      *os.File
	buf    []byte       // lines encoded and not yet written
	queued []queuedLine // the lines in buf, in order
	onFile lineMark     // the last complete line on the file
	err    error        // the first write error: nothing is written after it
	// check, when set, sees every encoded line (1-based number, kind, bytes with the
	// newline) before it is queued; its error stops the sink (see Continuation).
	check func(n int, kind string, line []byte) error
}

// bufferSize is how much a FileSink holds before it writes without being asked.
const bufferSize = 64 << 10

// queuedLine is a line in a FileSink's buffer: where its content ends there, and what
// Written reports once that is on the file.
type queuedLine struct {
	end  int
	mark lineMark
}

// lineMark is a Mark as the sink keeps it, without allocating per line.
type lineMark struct {
	line int
	h    [chainHexLen]byte
}

func (m lineMark) Mark() Mark {
	if m.line == 0 {
		return Mark{}
	}
	return Mark{Line: m.line, Head: string(m.h[:])}
}

// Mark names a line of a trace: its number (1 for the first) and its h. The zero Mark
// is "no line".
type Mark struct {
	Line int
	Head string
}

var _ Sink = (*FileSink)(nil)

// Write encodes the event and buffers its line. After a failed write it returns that
// error and encodes nothing more.
func (s *FileSink) Write(e *Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	line, err := s.chain.encode(e)
	if err != nil {
		return err
	}
	if s.check != nil {
		if err := s.check(s.chain.lines, e.Kind, line); err != nil {
			s.flush() // the lines before it are good: they reach the file
			s.err = err
			return err
		}
	}
	s.queue(line)
	if len(s.buf) >= bufferSize {
		return s.flush()
	}
	return nil
}

// queue appends an encoded line to the buffer.
func (s *FileSink) queue(line []byte) {
	s.buf = append(s.buf, line...)
	// A line whose newline did not reach the file is still whole to its readers, h
	// included, so it counts as written.
	s.queued = append(s.queued, queuedLine{end: len(s.buf) - 1, mark: lineMark{s.chain.lines, s.chain.prev}})
}

// flush writes the buffer to the file and moves onFile to the last line that reached
// it whole. A failed write is kept: the file may end in a torn line, and nothing is
// written after it.
func (s *FileSink) flush() error {
	if s.err != nil {
		return s.err
	}
	if len(s.buf) == 0 {
		return nil
	}
	n, err := s.w.Write(s.buf)
	if err == nil && n < len(s.buf) {
		err = io.ErrShortWrite
	}
	for _, q := range s.queued {
		if q.end > n {
			break
		}
		s.onFile = q.mark
	}
	s.buf, s.queued = s.buf[:0], s.queued[:0]
	if err != nil {
		s.err = fmt.Errorf("trace: writing line %d: %w", s.onFile.line+1, err)
	}
	return s.err
}

// Head is the h of the last complete line written to the file, or "" before the first:
// the chain's head, which a host may print or store elsewhere so that a later rewrite
// of the whole file shows. Lines still in the buffer do not count; Close writes them.
func (s *FileSink) Head() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onFile.Mark().Head
}

// Written is the last complete line on the file, and the write error that stopped the
// sink, if any: after an error the file ends at that line, perhaps followed by part of
// the next.
func (s *FileSink) Written() (Mark, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.onFile.Mark(), s.err
}

// Flush writes the buffered lines to the file (write(2)). It does not fsync: a trace
// survives the process being killed up to the last flush, and Close syncs.
func (s *FileSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.flush()
}

// ErrExists is returned by CreateFileSink when the trace file is already there.
var ErrExists = errors.New("trace file already exists")

// ErrLocked is returned when a trace file is locked by the writer of a run.
var ErrLocked = errors.New("trace file is locked by another writer")

// CreateFileSink creates a new trace file, opened for appending only, and locks it.
func CreateFileSink(path string) (*FileSink, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, fmt.Errorf("%s: %w (traces are never overwritten; choose another path)", path, ErrExists)
		}
		return nil, err
	}
	if err := lockFile(f, path); err != nil {
		f.Close()
		return nil, err
	}
	return &FileSink{w: f, f: f, buf: make([]byte, 0, bufferSize)}, nil
}

// Close flushes, syncs and closes the file, which releases its lock.
func (s *FileSink) Close() error {
	return cmp.Or(s.Flush(), s.f.Sync(), s.f.Close()) // all three run; the first error is returned
}

// MemorySink keeps the encoded (chained) trace in memory, for tests and replay checks.
type MemorySink struct {
	chained
	buf bytes.Buffer
}

var _ Sink = (*MemorySink)(nil)

// Write encodes the event and appends its line.
func (s *MemorySink) Write(e *Event) error { return s.write(e, &s.buf) }

// Flush does nothing: the lines are already in memory.
func (s *MemorySink) Flush() error { return nil }

// Bytes returns a copy of the trace so far.
func (s *MemorySink) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.buf.Bytes())
}
