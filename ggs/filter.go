package ggs

import (
	"container/list"
	"context"
)

// DefaultMaxOpenTasks is how many open tasks a Filter keeps unless told otherwise.
const DefaultMaxOpenTasks = 10000

// Bound limits the per-task state a Filter keeps on an endless stream. Both limits count
// input lines and tasks, never time, so that the same input evicts the same tasks.
type Bound struct {
	// MaxOpen is the most tasks kept open; beyond it the least recently used is evicted.
	// 0 means no limit.
	MaxOpen int
	// IdleLines evicts a task that has had no message in that many input lines. 0 means
	// never.
	IdleLines int
}

// Eviction reasons.
const (
	EvictedLRU  = "lru"  // more than MaxOpen tasks were open; this one was used least recently
	EvictedIdle = "idle" // no message for it in IdleLines lines
)

// Eviction is one task forgotten by a Filter before it reached a terminal directive. A
// later message for the task starts it afresh, as its first round.
type Eviction struct {
	Line   int // the input line after which it was evicted
	TaskID string
	Reason string // EvictedLRU or EvictedIdle
}

// Filter runs a Solver over a stream of messages, one per input line, and keeps the
// Solver's open tasks within a Bound: its memory stays flat however many task_ids the
// stream opens and never closes. It is not safe for concurrent use.
type Filter struct {
	s     *Solver
	bound Bound
	order *list.List // *openTask, least recently used first
	byID  map[string]*list.Element
	out   []Eviction
}

type openTask struct {
	id   string
	last int // the last input line with a message for it
}

// NewFilter returns a Filter over s. Negative limits count as no limit.
func NewFilter(s *Solver, b Bound) *Filter {
	return &Filter{s: s, bound: b, order: list.New(), byID: map[string]*list.Element{}}
}

// Handle runs one round for m, read from input line n.
func (f *Filter) Handle(ctx context.Context, n int, m Message) (Output, error) {
	out, err := f.s.Handle(ctx, m)
	id := m.TaskID()
	e, tracked := f.byID[id]
	switch _, open := f.s.tasks.tasks[id]; {
	case open && tracked:
		e.Value.(*openTask).last = n
		f.order.MoveToBack(e)
	case open:
		f.byID[id] = f.order.PushBack(&openTask{id: id, last: n})
	case tracked: // closed by a terminal directive, or dropped with its failed first round
		f.order.Remove(e)
		delete(f.byID, id)
	}
	return out, err
}

// Expire evicts, after input line n, the tasks beyond the bound: first the least recently
// used while more than MaxOpen are open, then those idle for more than IdleLines lines.
// It returns them in eviction order; the slice is reused by the next call.
func (f *Filter) Expire(n int) []Eviction {
	f.out = f.out[:0]
	for f.bound.MaxOpen > 0 && f.order.Len() > f.bound.MaxOpen {
		f.evict(n, f.order.Front(), EvictedLRU)
	}
	for f.bound.IdleLines > 0 && f.order.Len() > 0 {
		e := f.order.Front()
		if n-e.Value.(*openTask).last <= f.bound.IdleLines {
			break
		}
		f.evict(n, e, EvictedIdle)
	}
	return f.out
}

func (f *Filter) evict(n int, e *list.Element, reason string) {
	t := e.Value.(*openTask)
	f.order.Remove(e)
	delete(f.byID, t.id)
	delete(f.s.tasks.tasks, t.id)
	f.out = append(f.out, Eviction{Line: n, TaskID: t.id, Reason: reason})
}

// Open is the number of open tasks.
func (f *Filter) Open() int { return f.order.Len() }
