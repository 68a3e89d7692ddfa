package trace

import (
	"bufio"
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
	// Flush makes every event written so far durable to the sink's medium. The engine
	// calls it at each cycle boundary.
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
type FileSink struct {
	chained
	w *bufio.Writer
	f *os.File
}

var _ Sink = (*FileSink)(nil)

// Write encodes the event and buffers its line.
func (s *FileSink) Write(e *Event) error { return s.write(e, s.w) }

// Head is the h of the last line written, or "" before the first: the chain's head,
// which a host may print or store elsewhere so that a later rewrite of the whole file
// shows.
func (s *FileSink) Head() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chain.head()
}

// Flush writes the buffered lines to the file. It does not fsync: a trace survives a
// process crash up to the last flush, and Close syncs.
func (s *FileSink) Flush() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Flush()
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
	return &FileSink{w: bufio.NewWriterSize(f, 64<<10), f: f}, nil
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
