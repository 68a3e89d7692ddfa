package spine

import (
	"context"
	"encoding/json"

	"github.com/agentspine/spine/spine/trace"
)

// EvExchange is a nested exchange an effector journals while the engine waits on it: a
// model call, a tool call, a memory query.
const EvExchange = trace.KindExchange

// Usage is the token usage of a model call, journalled with its exchange.
type Usage = trace.Usage

// Exchange is one nested exchange as an effector hands it to Journal.Record: Request
// and Response are the Go values exchanged, and must encode as JSON. The trace records
// it as a trace.Exchange.
type Exchange struct {
	Name       string `json:"name"` // what was called: "llm:R2", "tool:shell", …
	Request    any    `json:"request"`
	Response   any    `json:"response,omitempty"`
	Error      string `json:"error,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
	DurationMS int64  `json:"duration_ms"`
}

// record is x as the trace records it. A request or response that does not encode is
// left to the sink, which fails on x itself as on any body that does not encode.
func (x Exchange) record() any {
	req, err := json.Marshal(x.Request)
	if err != nil {
		return x
	}
	var resp json.RawMessage
	if x.Response != nil {
		if resp, err = json.Marshal(x.Response); err != nil {
			return x
		}
	}
	return trace.Exchange{Name: x.Name, Request: req, Response: resp, Error: x.Error, Usage: x.Usage, DurationMS: x.DurationMS}
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

// Record writes one nested exchange and returns the seq of its event (0 on a nil
// Journal). It is safe to call from several goroutines; to keep traces reproducible,
// record concurrent work in a fixed order.
func (j *Journal) Record(x Exchange) int64 {
	if j == nil {
		return 0
	}
	seq := j.s.tracer.emitSeq(EvExchange, x.record())
	if tap := j.s.opts.journalTap; tap != nil {
		tap(seq, EvExchange, x)
	}
	return seq
}

// EvMessage is a bus message an effector passes on while the engine waits on it.
const EvMessage = trace.KindMessage

// Message is one inter-role message; see trace.Message. Journal.Message sets its Seq.
type Message = trace.Message

// Message journals a bus message and returns the seq of its event (0 on a nil Journal).
func (j *Journal) Message(m Message) int64 {
	if j == nil {
		return 0
	}
	seq := j.s.tracer.emitSeq(EvMessage, m)
	if tap := j.s.opts.journalTap; tap != nil {
		m.Seq = seq
		tap(seq, EvMessage, m)
	}
	return seq
}
