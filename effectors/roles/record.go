package roles

import (
	"context"
	"sync"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// recorder receives what a role journals: nested exchanges (model and tool calls, memory
// queries) and, as the record of a bus.Post, the messages posted.
type recorder interface {
	exchange(engine.Exchange)
	// snapshot journals the exchange take makes, calling it when the line is written
	// (a snapshot of the work dir as it is then).
	snapshot(take func() engine.Exchange)
	bus.Recorder
}

// journalRecorder writes to the trace journal of the effector call in progress and keeps
// the round's messages for the graceful failure. Whoever watches the run live does so
// through the trace as written (ggsrun.EventObserver), not here.
type journalRecorder struct {
	j   *engine.Journal
	log *[]trace.Message
}

var _ recorder = journalRecorder{}

func (r journalRecorder) exchange(x engine.Exchange) { r.j.Record(x) }

func (r journalRecorder) snapshot(take func() engine.Exchange) { r.j.Record(take()) }

func (r journalRecorder) Message(m trace.Message) int64 {
	m.Seq = r.j.Message(m)
	if r.log != nil {
		*r.log = append(*r.log, m)
	}
	return m.Seq
}

// event is one buffered journal entry: exactly one of the three is set.
type event struct {
	x    *engine.Exchange
	m    *trace.Message
	take func() engine.Exchange // a snapshot, taken when written through
}

// buffer holds a subtask's journal entries until every subtask before it in its group
// has finished, so that parallel work is journalled in plan order whatever order it
// completed in. The first unfinished subtask's buffer writes through (see through): its
// model and tool calls reach the trace as they happen, and a run killed in the middle
// of a group keeps them.
type buffer struct {
	mu     sync.Mutex
	events []event
	to     recorder // set once the buffer writes through
}

var _ recorder = (*buffer)(nil)

func (b *buffer) exchange(x engine.Exchange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.to != nil {
		b.to.exchange(x)
		return
	}
	b.events = append(b.events, event{x: &x})
}

// snapshot keeps take for the flush, where the snapshot is taken: it then holds what
// every line written before it did.
func (b *buffer) snapshot(take func() engine.Exchange) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.to != nil {
		b.to.snapshot(take)
		return
	}
	b.events = append(b.events, event{take: take})
}

// Message keeps m for the flush; its seq is not known until then. A buffer that writes
// through does not know it either, as far as its subtask is told: what a subtask sees
// must not depend on when its buffer started writing through.
func (b *buffer) Message(m trace.Message) int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.to != nil {
		b.to.Message(m)
		return 0
	}
	b.events = append(b.events, event{m: &m})
	return 0
}

// through replays the buffered entries into to, in the order they were made, and
// writes every later entry straight to it.
func (b *buffer) through(to recorder) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, e := range b.events {
		switch {
		case e.x != nil:
			to.exchange(*e.x)
		case e.take != nil:
			to.snapshot(e.take)
		default:
			to.Message(*e.m)
		}
	}
	b.events, b.to = nil, to
}

// group is the journal of one group of subtasks, written in plan order: subtask k's
// buffer writes through once every subtask before it has finished.
type group struct {
	mu   sync.Mutex
	rec  recorder
	bufs []buffer
	done []bool
	head int // the first unfinished subtask, whose buffer writes through
}

func newGroup(rec recorder, n int) *group {
	g := &group{rec: rec, bufs: make([]buffer, n), done: make([]bool, n)}
	if n > 0 {
		g.bufs[0].through(rec)
	}
	return g
}

// finished marks subtask k done and lets the next unfinished one write through.
func (g *group) finished(k int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.done[k] = true
	for g.head < len(g.done) && g.done[g.head] {
		g.head++
		if g.head < len(g.bufs) {
			g.bufs[g.head].through(g.rec)
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
