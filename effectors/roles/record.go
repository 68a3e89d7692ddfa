package roles

import (
	"sync"

	"github.com/agentspine/spine/spine"
)

// recorder receives what a role journals: nested exchanges (model and tool calls, memory
// queries) and bus messages.
type recorder interface {
	exchange(spine.Exchange)
	message(spine.Message)
}

// journalRecorder writes to the trace journal of the effector call in progress and shows
// messages to the live display.
type journalRecorder struct {
	j         *spine.Journal
	taskID    string
	onMessage func(spine.Message)
}

var _ recorder = journalRecorder{}

func (r journalRecorder) exchange(x spine.Exchange) { r.j.Record(x) }

func (r journalRecorder) message(m spine.Message) {
	if m.TaskID == "" {
		m.TaskID = r.taskID
	}
	r.j.Message(m)
	if r.onMessage != nil {
		r.onMessage(m)
	}
}

// event is one buffered journal entry: exactly one of the two is set.
type event struct {
	x *spine.Exchange
	m *spine.Message
}

// buffer holds a subtask's journal entries until its group has finished, so that
// parallel work is journalled in plan order whatever order it completed in.
type buffer struct {
	mu     sync.Mutex
	events []event
}

var _ recorder = (*buffer)(nil)

func (b *buffer) exchange(x spine.Exchange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, event{x: &x})
}

func (b *buffer) message(m spine.Message) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.events = append(b.events, event{m: &m})
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
			to.message(*e.m)
		}
	}
}
