package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// Exchange is one nested exchange as an effector hands it to Journal.Record: Request
// and Response are the Go values exchanged, and must encode as JSON. The trace records
// it as a trace.Exchange.
type Exchange struct {
	Name       string // what was called: "llm:R2", "tool:shell", …
	Request    any
	Response   any // nil: none
	Error      string
	Usage      *contract.ModelUsage
	DurationMS int64
}

// record is x as the trace records it.
func (x Exchange) record() (trace.Exchange, error) {
	req, err := json.Marshal(x.Request)
	if err != nil {
		return trace.Exchange{}, err
	}
	var resp json.RawMessage
	if x.Response != nil {
		if resp, err = json.Marshal(x.Response); err != nil {
			return trace.Exchange{}, err
		}
	}
	rec := trace.Exchange{Name: x.Name, Request: req, Response: resp, Error: x.Error, Usage: x.Usage, DurationMS: x.DurationMS}
	fitLine(&rec)
	return rec, nil
}

// lineOverhead is what a trace line holds beside its exchange body: the envelope (seq,
// t, kind) and the hash chain's h, with room to spare.
const lineOverhead = 256

// fitLine keeps an exchange within one trace line. The budgets of contract bound each
// part on its own; here the parts are measured together, as they will be written. While
// the exchange is over the line, its error is cut, then the larger of its request and
// response, then the other, is replaced by a note naming its size: what is written is
// all that fits, and the trace stays readable by its own readers.
func fitLine(x *trace.Exchange) {
	const maxError = 4 << 10
	over := func() bool {
		b, err := json.Marshal(x)
		return err == nil && len(b)+lineOverhead > contract.MaxTraceLine
	}
	if !over() {
		return
	}
	if len(x.Error) > maxError {
		x.Error = strings.ToValidUTF8(x.Error[:maxError], "") + fmt.Sprintf("…(%d bytes)", len(x.Error))
	}
	parts := []*json.RawMessage{&x.Request, &x.Response}
	if len(x.Response) > len(x.Request) {
		parts[0], parts[1] = parts[1], parts[0]
	}
	for _, p := range parts {
		if !over() {
			return
		}
		*p = json.RawMessage(fmt.Sprintf(`{"omitted_bytes":%d,"why":"over the %d-byte limit of a trace line"}`, len(*p), contract.MaxTraceLine))
	}
}

// Journal records an effector's nested exchanges in the run's trace, between the
// effector_call and effector_result events of the call that made them. A replay serves
// the effector's result from the recording without calling it and writes the recorded
// nested exchanges again, so the replayed trace has them too.
type Journal struct {
	s *Session
}

type journalKey struct{}

func withJournal(ctx context.Context, s *Session) context.Context {
	return context.WithValue(ctx, journalKey{}, &Journal{s: s})
}

// JournalFrom returns the journal of the effector call ctx belongs to, or nil outside
// one. A nil *Journal ignores records, so effectors need not check.
func JournalFrom(ctx context.Context) *Journal {
	j, _ := ctx.Value(journalKey{}).(*Journal)
	return j
}

// Record writes one nested exchange, flushes the trace so that it is on the file before
// the effector goes on, and returns the seq of its event (0 on a nil Journal). It is safe to call from several goroutines; to keep traces reproducible,
// record concurrent work in a fixed order.
func (j *Journal) Record(x Exchange) int64 {
	if j == nil {
		return 0
	}
	var seq int64
	t := &j.s.tracer
	if t.discard {
		seq = t.journalSeq() // nobody reads it: do not encode it
	} else if body, err := x.record(); err != nil {
		seq = t.failSeq(trace.KindExchange, err)
	} else {
		_, seq = t.emit(trace.KindExchange, body)
	}
	t.flush()
	if tap := j.s.opts.journalTap; tap != nil {
		tap(seq, trace.KindExchange, x)
	}
	return seq
}

// Message journals a bus message, flushed as Record's exchanges are, and returns the
// seq of its event (0 on a nil Journal).
func (j *Journal) Message(m trace.Message) int64 {
	if j == nil {
		return 0
	}
	var seq int64
	if t := &j.s.tracer; t.discard {
		seq = t.journalSeq()
	} else {
		_, seq = t.emit(trace.KindMessage, m)
	}
	j.s.tracer.flush()
	if tap := j.s.opts.journalTap; tap != nil {
		m.Seq = seq
		tap(seq, trace.KindMessage, m)
	}
	return seq
}

// flush writes the trace's buffered lines to its medium (for a file, write(2)) and
// keeps the first error. Besides the cycle boundaries, a live run flushes after every
// exchange, so that the next one starts with it on the file: a run killed in the middle
// of a round keeps every exchange it made before the kill. The journal is only live (a
// replay serves recorded calls and writes their exchanges through its Tape), so
// replays and checks keep writing in batches.
func (t *tracer) flush() {
	if t.discard {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := t.sink.Flush(); err != nil && t.err == nil {
		t.err = err
	}
}

// failSeq counts an event whose body could not be encoded, as a sink that failed to
// encode it would: it takes its clock reading and its seq, is not written, and is the
// trace's first error, which stops the engine at the next cycle boundary.
func (t *tracer) failSeq(kind string, err error) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clock.Now() // the reading the write would have taken: a replay serves readings in order
	return t.fail(kind, err)
}

// failAt is failSeq for an event whose clock reading the caller already took.
func (t *tracer) failAt(kind string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fail(kind, err)
}

func (t *tracer) fail(kind string, err error) int64 {
	seq := t.seq.Add(1)
	if t.err == nil && !t.discard {
		t.err = fmt.Errorf("trace: encoding %s event: %w", kind, err)
	}
	return seq
}
