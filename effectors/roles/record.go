package roles

import (
	"context"
	"github.com/agentspine/spine/spine/trace"
	"sync"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine/engine"
)

// recorder receives what a role journals: nested exchanges (model and tool calls, memory
// queries) and, as the record of a bus.Post, the messages posted.
type recorder interface {
	exchange(engine.Exchange)
	bus.Recorder
}

// journalRecorder writes to the trace journal of the effector call in progress, shows
// messages to the live display, and keeps the round's messages for the graceful failure.
type journalRecorder struct {
	j         *engine.Journal
	onMessage func(trace.Message)
	log       *[]trace.Message
}

var _ recorder = journalRecorder{}

func (r journalRecorder) exchange(x engine.Exchange) { r.j.Record(x) }

func (r journalRecorder) Message(m trace.Message) int64 {
	m.Seq = r.j.Message(m)
	if r.log != nil {
		*r.log = append(*r.log, m)
	}
	if r.onMessage != nil {
		r.onMessage(m)
	}
	return m.Seq
}

// event is one buffered journal entry: exactly one of the two is set.
type event struct {
	x *engine.Exchange
	m *trace.Message
}

// buffer holds a subtask's journal entries until its group has finished, so that
// parallel work is journalled in plan order whatever order it completed in.
type buffer struct {
	mu     sync.Mutex
	events []event
}

var _ recorder = (*buffer)(nil)

func (b *buffer) exchange(x engine.Exchange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, event{x: &x})
}

// Message keeps m for the flush; its seq is not known until then.
func (b *buffer) Message(m trace.Message) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, event{m: &m})
	return 0
}

// flush replays the buffered entries into to, in the order they were made, and empties
// the buffer.
func (b *buffer) flush(to recorder) {
	b.mu.Lock()
	events := b.events
	b.events = nil
	b.mu.Unlock()
	for _, e := range events {
		if e.x != nil {
			to.exchange(*e.x)
		} else {
			to.Message(*e.m)
		}
	}
}

// withRetryRole makes the retry hook ctx carries, if any, name role: one client serves
// every role, so only the role's own model knows whose call is being retried.
func withRetryRole(ctx context.Context, role llm.RoleName) context.Context {
	hook := llm.RetryHookFrom(ctx)
	if hook == nil {
		return ctx
	}
	return llm.WithRetryHook(ctx, func(r llm.Retry) {
		r.Role = role
		hook(r)
	})
}
