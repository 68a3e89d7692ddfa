package fleet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/spine/trace"
)

// The trace-line stream: every line of every attempt's trace, stored as the run writes
// it, so that a redelivered task continues from where its superseded attempt stopped
// instead of paying for its model calls again. The whole trace still goes to the
// object store at the run's end; these lines are the record of a run in progress.
const (
	LineStream     = "SPINE_TRACE_LINES"
	LineSubjectPfx = "spine.lines." // spine.lines.<task id>.<attempt>
	LineHeader     = "Spine-Line"   // the line's number in its trace, 1 for the header
	PartHeader     = "Spine-Part"   // "i/k": a line longer than a message may be comes in k parts
	// LineMaxAge bounds how long a line is kept: an accepted task's lines are purged at
	// once (its trace is in the object store); this bounds what an abandoned one leaves.
	LineMaxAge = 7 * 24 * time.Hour
	// lineDupWindow is how long the server remembers a line's message id, so a line sent
	// again after an unanswered publish is stored once.
	lineDupWindow = 10 * time.Minute
	// lineAckWait bounds how long a flush waits for the server to store its lines while
	// the connection is up; lines not stored by then are sent again at the next flush.
	lineAckWait = 5 * time.Second
)

// LineSubject is the subject of the trace lines of a task's attempt.
func LineSubject(task string, attempt int) string {
	return LineSubjectPfx + token(task) + "." + strconv.Itoa(attempt)
}

// lineStream creates the stream of trace lines when it is missing.
func (c *Client) lineStream(ctx context.Context) error {
	if _, err := c.js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name: LineStream, Subjects: []string{LineSubjectPfx + ">"}, Storage: jetstream.FileStorage,
		MaxAge: LineMaxAge, Duplicates: lineDupWindow,
	}); err != nil {
		return fmt.Errorf("trace line stream: %w", err)
	}
	return nil
}

// dropLines purges a task's stored lines, every attempt's: called once the task has an
// accepted result, whose whole trace is in the object store.
func (c *Client) dropLines(ctx context.Context, task string) error {
	s, err := c.js.Stream(ctx, LineStream)
	if err == nil {
		err = s.Purge(ctx, jetstream.WithPurgeSubject(LineSubjectPfx+token(task)+".>"))
	}
	return err
}

// lineTap sends each complete line of a trace file to the line stream as the run
// flushes it to the file. It reads the file rather than the events, so what it stores
// is the trace's bytes, chain and all, and never a line the file does not hold whole.
// It never stops the run: a line the server did not store is sent again at the next
// flush (the same message id, so stored once), and close reports what is still missing.
type lineTap struct {
	c    *Client
	subj string
	msgs string // message id prefix: <task>/<attempt>/
	path string
	// partSize is the most a message carries of a line; 0: the connection's payload
	// limit, less room for the headers.
	partSize int
	// snaps, when set, sends the snapshot a line records before the line.
	snaps *snapPush

	mu      sync.Mutex
	f       *os.File
	torn    []byte // the file's bytes after its last newline
	lines   int    // complete lines read from the file
	pending []sentLine
	stored  int // lines the server acknowledged
	fails   int
	first   error
}

// sentLine is a line read from the file and not yet acknowledged; acks is nil until it
// is (again) sent.
type sentLine struct {
	n      int
	data   []byte
	acks   []jetstream.PubAckFuture
	pushed bool // the snapshot it records, if any, is in the fleet's store
}

func newLineTap(c *Client, task string, attempt int, path string) *lineTap {
	return &lineTap{c: c, subj: LineSubject(task, attempt), msgs: fmt.Sprintf("%s/%d/", task, attempt), path: path}
}

// wrap puts the tap on the file's own sink: every flush of the file, the engine's or a
// wrapper's, sends what it wrote.
func (t *lineTap) wrap(next trace.Sink) trace.Sink { return &lineSink{next: next, t: t} }

type lineSink struct {
	next trace.Sink
	t    *lineTap
}

func (s *lineSink) Write(e *trace.Event) error { return s.next.Write(e) }

func (s *lineSink) Flush() error {
	err := s.next.Flush()
	wait := time.Duration(0)
	if s.t.c.Connected() {
		wait = lineAckWait
	}
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	s.t.sync(ctx)
	return err
}

// sync reads what the file gained, sends every line not yet stored, and waits until ctx
// ends for the server to store them. A line the server did not answer for while the
// connection was up is sent again at the next sync; one sent while it is down waits in
// the client's buffer for the reconnection, and is not sent twice meanwhile.
func (t *lineTap) sync(ctx context.Context) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.read(); err != nil {
		t.fail(err)
	}
	size := t.partSize
	if size <= 0 {
		size = int(t.c.nc.MaxPayload()) - 1024
	}
	for i := range t.pending {
		p := &t.pending[i]
		if p.acks != nil {
			continue
		}
		if !p.pushed {
			// A stored line's snapshot is always there to restore: until it is sent,
			// neither the line nor any after it is.
			if err := t.snaps.before(p.data); err != nil {
				t.fail(err)
				break
			}
			p.pushed = true
		}
		acks, err := t.send(p.n, p.data, size)
		if err != nil {
			t.fail(err)
			continue
		}
		p.acks = acks
	}
	kept := t.pending[:0]
	for _, p := range t.pending {
		if p.acks == nil { // its send failed: tried again at the next sync
			kept = append(kept, p)
			continue
		}
		switch ok, err := waitAcks(ctx, p.acks); {
		case ok:
			t.stored++
			continue
		case err != nil:
			t.fail(err)
			p.acks = nil
		case t.c.Connected():
			p.acks = nil // unanswered: sent again next time, stored once
		}
		kept = append(kept, p)
	}
	t.pending = kept
}

// read takes the complete lines the file gained since the last read.
func (t *lineTap) read() error {
	if t.f == nil {
		f, err := os.Open(t.path)
		if errors.Is(err, os.ErrNotExist) {
			return nil // not created yet
		}
		if err != nil {
			return err
		}
		t.f = f
	}
	b, err := io.ReadAll(t.f)
	if err != nil {
		return err
	}
	b = append(t.torn, b...)
	for {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			break
		}
		t.lines++
		t.pending = append(t.pending, sentLine{n: t.lines, data: b[: i+1 : i+1]})
		b = b[i+1:]
	}
	t.torn = bytes.Clone(b)
	return nil
}

// send publishes line n, in parts of at most size bytes.
func (t *lineTap) send(n int, data []byte, size int) ([]jetstream.PubAckFuture, error) {
	parts := max(1, (len(data)+size-1)/size)
	var acks []jetstream.PubAckFuture
	for i := 0; i < parts; i++ {
		part := data[i*size : min(len(data), (i+1)*size)]
		id := t.msgs + strconv.Itoa(n) + "/" + strconv.Itoa(i+1)
		ack, err := t.c.js.PublishMsgAsync(&nats.Msg{Subject: t.subj, Data: part, Header: nats.Header{
			LineHeader: []string{strconv.Itoa(n)}, PartHeader: []string{fmt.Sprintf("%d/%d", i+1, parts)},
			jetstream.MsgIDHeader: []string{id}}})
		if err != nil {
			return nil, err
		}
		acks = append(acks, ack)
	}
	return acks, nil
}

// waitAcks waits until ctx ends for every ack: ok when all came, err when the server
// refused one. An ack already there counts even when ctx has ended.
func waitAcks(ctx context.Context, acks []jetstream.PubAckFuture) (ok bool, err error) {
	for _, a := range acks {
		select {
		case <-a.Ok():
			continue
		case err := <-a.Err():
			return false, err
		default:
		}
		select {
		case <-a.Ok():
		case err := <-a.Err():
			return false, err
		case <-ctx.Done():
			return false, nil
		}
	}
	return true, nil
}

func (t *lineTap) fail(err error) {
	if t.fails == 0 {
		t.first = err
	}
	t.fails++
}

// close sends what the run wrote after its last flush (the file's close writes the
// end of the trace), waits until ctx ends for the server to store every line, and says
// what is missing. A torn last line is not sent.
func (t *lineTap) close(ctx context.Context) (stored int, err error) {
	t.sync(ctx)
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		_ = t.f.Close()
		t.f = nil
	}
	if len(t.pending) > 0 {
		err = fmt.Errorf("%d of %d trace line(s) not stored", len(t.pending), t.lines)
		if t.first != nil {
			err = fmt.Errorf("%w, the first error: %w", err, t.first)
		}
	}
	return t.stored, err
}

// attemptLines fetches the stored lines of a task's attempt: from line 1, as many as
// follow one another whole (each part there, each line ending in its newline). What
// comes after a gap is not used, and a last line without its newline (torn) is dropped.
func (c *Client) attemptLines(ctx context.Context, task string, attempt int) ([][]byte, error) {
	subj := LineSubject(task, attempt)
	s, err := c.js.Stream(ctx, LineStream)
	if err != nil {
		return nil, fmt.Errorf("trace line stream: %w", err)
	}
	cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		return nil, fmt.Errorf("trace lines of %s: %w", subj, err)
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("trace lines of %s: %w", subj, err)
	}
	// The messages stored when the consumer began; a line stored after (by an attempt
	// still running, superseded) is not waited for.
	parts := map[int][][]byte{} // line → its parts, by index
	for left := info.NumPending; left > 0; {
		batch, err := cons.Fetch(int(min(left, 256)), jetstream.FetchMaxWait(5*time.Second))
		if err != nil {
			return nil, fmt.Errorf("trace lines of %s: %w", subj, err)
		}
		got := 0
		for m := range batch.Messages() {
			got++
			if n, i, k, ok := lineOf(m.Headers()); ok {
				if len(parts[n]) != k {
					parts[n] = make([][]byte, k)
				}
				parts[n][i-1] = m.Data()
			}
		}
		if err := batch.Error(); err != nil && !errors.Is(err, nats.ErrTimeout) {
			return nil, fmt.Errorf("trace lines of %s: %w", subj, err)
		}
		if got == 0 {
			return nil, fmt.Errorf("trace lines of %s: the stream stopped answering with %d message(s) left", subj, left)
		}
		left -= uint64(got)
	}
	return wholeLines(parts), nil
}

// lineOf reads a stored line's number and part i of k from its headers.
func lineOf(h nats.Header) (n, i, k int, ok bool) {
	n, err := strconv.Atoi(h.Get(LineHeader))
	if err != nil || n < 1 {
		return 0, 0, 0, false
	}
	a, b, found := strings.Cut(h.Get(PartHeader), "/")
	i, err1 := strconv.Atoi(a)
	k, err2 := strconv.Atoi(b)
	if !found || err1 != nil || err2 != nil || k < 1 || i < 1 || i > k || k > 1<<16 {
		return 0, 0, 0, false
	}
	return n, i, k, true
}

// wholeLines joins each line's parts, from line 1 to the first line missing, missing a
// part, or without its newline.
func wholeLines(parts map[int][][]byte) [][]byte {
	var out [][]byte
	for n := 1; ; n++ {
		ps, ok := parts[n]
		if !ok {
			return out
		}
		var line []byte
		for _, p := range ps {
			if p == nil {
				return out
			}
			line = append(line, p...)
		}
		if i := bytes.IndexByte(line, '\n'); i != len(line)-1 {
			return out // torn, or not one line
		}
		out = append(out, line)
	}
}
