package spine

import "context"

// EvExchange is a nested exchange an effector journals while the engine waits on it: a
// model call, a tool call, a memory query.
const EvExchange = "exchange"

// Usage is the token usage of a model call, journalled with its exchange.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Exchange is one nested exchange. Request and Response must encode as JSON.
type Exchange struct {
	Name       string `json:"name"` // what was called: "llm:R2", "tool:shell", …
	Request    any    `json:"request"`
	Response   any    `json:"response,omitempty"`
	Error      string `json:"error,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
	DurationMS int64  `json:"duration_ms"`
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
	seq := j.s.tracer.emitSeq(EvExchange, x)
	if tap := j.s.opts.journalTap; tap != nil {
		tap(seq, EvExchange, x)
	}
	return seq
}

// EvMessage is a bus message an effector passes on while the engine waits on it.
const EvMessage = "message"

// Message is one inter-role message, as journalled in the trace.
type Message struct {
	// Seq is the trace seq of the event that journalled the message (set by
	// Journal.Message; not part of the event), so a bus can publish it under the same
	// number and findings can cite trace lines.
	Seq     int64  `json:"-"`
	From    string `json:"from"`
	To      string `json:"to"`
	Type    string `json:"type"`
	TaskID  string `json:"task_id,omitempty"`
	Payload any    `json:"payload"`
}

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
