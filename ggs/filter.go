package ggs

import (
	"context"
	"fmt"
)

// DefaultMaxOpenTasks is how many open tasks a Filter keeps unless told otherwise.
const DefaultMaxOpenTasks = 10000

// DefaultMaxEvictedTasks is how many evicted task ids spine ggs remembers unless told
// otherwise: ten times the open tasks, a few megabytes for ids of tens of bytes.
const DefaultMaxEvictedTasks = 100000

// Bound limits the per-task state a Filter keeps on an endless stream. Both limits count
// input lines and tasks, never time, so that the same input evicts the same tasks.
type Bound struct {
	// MaxOpen is the most tasks kept open; beyond it the least recently used is evicted.
	// 0 means no limit.
	MaxOpen int
	// IdleLines evicts a task that has had no message in that many input lines. 0 means
	// never.
	IdleLines int
	// MaxEvicted is how many evicted task ids are remembered, exactly, so that a later
	// message for one is refused with an EvictedError instead of being decided on lost
	// state. Beyond it the oldest is forgotten, and that is reported as an Eviction with
	// Reason EvictionForgotten: a later message for that id starts a new task. 0 means
	// no limit.
	MaxEvicted int
}

// Eviction reasons.
const (
	EvictedLRU  = "lru"  // more than MaxOpen tasks were open; this one was used least recently
	EvictedIdle = "idle" // no message for it in IdleLines lines
	// EvictionForgotten: more than MaxEvicted evicted ids were remembered, and this, the
	// oldest, is dropped from that memory.
	EvictionForgotten = "forgotten"
)

// Eviction is one task forgotten by a Filter before it reached a terminal directive. While
// the Filter remembers it (Bound.MaxEvicted), a later message for the task is refused
// with an EvictedError. An Eviction with Reason EvictionForgotten says that memory is gone
// too: a later message for the id starts a new task.
type Eviction struct {
	Line   int // the input line after which it was evicted, or forgotten
	TaskID string
	Reason string // EvictedLRU, EvictedIdle or EvictionForgotten
	// EvictedAt is, for EvictionForgotten, the line after which the task was evicted.
	EvictedAt int
}

// EvictedError is Handle's answer to a message for a task the Filter evicted: the
// task's state (loss, Law 2 counter, replans, blocked targets) is gone, so no decision
// is computed from it.
type EvictedError struct {
	TaskID string
	Line   int    // the input line after which it was evicted
	Reason string // EvictedLRU or EvictedIdle
}

func (e *EvictedError) Error() string {
	why := "the least recently used of more open tasks than the bound"
	if e.Reason == EvictedIdle {
		why = "idle past the bound"
	}
	return fmt.Sprintf("task %q was evicted after line %d (%s): its state is gone, so this message is not decided", e.TaskID, e.Line, why)
}

// Filter runs a Solver over a stream of messages, one per input line, and keeps the
// Solver's open tasks within a Bound: its memory stays flat however many task_ids the
// stream opens and never closes. It never decides on lost state: a task it evicted is
// remembered (up to Bound.MaxEvicted ids, exactly) and a later message for it refused,
// and when that memory is full the id it drops is reported. It is not safe for
// concurrent use.
type Filter struct {
	s     *Solver
	bound Bound
	order lru // the open tasks, least recently used first
	byID  map[string]int32
	out   []Eviction

	// The evicted ids remembered, oldest first: a ring of at most MaxEvicted (a slice
	// when unbounded), and the index by id.
	gone     []EvictedError
	goneHead int
	goneByID map[string]int // id → position in gone
}

// NewFilter returns a Filter over s. Negative limits count as no limit.
func NewFilter(s *Solver, b Bound) *Filter {
	return &Filter{s: s, bound: b, order: newLRU(), byID: map[string]int32{}, goneByID: map[string]int{}}
}

// Handle runs one round for m, read from input line n. A message for a task the Filter
// evicted, and still remembers, is refused with an *EvictedError and changes nothing.
func (f *Filter) Handle(ctx context.Context, n int, m Message) (Output, error) {
	return f.handle(ctx, n, m, f.s.Handle)
}

// handle is Handle with the Solver's round given: Run's messages come from the decoder,
// which has validated them (Solver.handleChecked).
func (f *Filter) handle(ctx context.Context, n int, m Message, round func(context.Context, Message) (Output, error)) (Output, error) {
	id := m.TaskID()
	if i, ok := f.goneByID[id]; ok {
		e := f.gone[i]
		return Output{}, &e
	}
	out, err := round(ctx, m)
	e, tracked := f.byID[id]
	switch _, open := f.s.tasks.tasks[id]; {
	case open && tracked:
		f.order.nodes[e].last = n
		f.order.moveToBack(e)
	case open:
		f.byID[id] = f.order.pushBack(id, n)
	case tracked: // closed by a terminal directive, or dropped with its failed first round
		f.order.remove(e)
		delete(f.byID, id)
	}
	return out, err
}

// Expire evicts, after input line n, the tasks beyond the bound: first the least recently
// used while more than MaxOpen are open, then those idle for more than IdleLines lines.
// It returns them in eviction order; the slice is reused by the next call.
func (f *Filter) Expire(n int) []Eviction {
	f.out = f.out[:0]
	for f.bound.MaxOpen > 0 && f.order.len > f.bound.MaxOpen {
		f.evict(n, f.order.front(), EvictedLRU)
	}
	for f.bound.IdleLines > 0 && f.order.len > 0 {
		e := f.order.front()
		if n-f.order.nodes[e].last <= f.bound.IdleLines {
			break
		}
		f.evict(n, e, EvictedIdle)
	}
	return f.out
}

func (f *Filter) evict(n int, e int32, reason string) {
	id := f.order.nodes[e].id
	f.order.remove(e)
	delete(f.byID, id)
	delete(f.s.tasks.tasks, id)
	f.out = append(f.out, Eviction{Line: n, TaskID: id, Reason: reason})
	f.remember(n, EvictedError{TaskID: id, Line: n, Reason: reason})
}

// remember adds an evicted id to the memory of evictions, forgetting the oldest (and
// saying so) when it is full.
func (f *Filter) remember(n int, e EvictedError) {
	max := f.bound.MaxEvicted
	if max <= 0 || len(f.gone) < max {
		f.goneByID[e.TaskID] = len(f.gone)
		f.gone = append(f.gone, e)
		return
	}
	old := f.gone[f.goneHead]
	delete(f.goneByID, old.TaskID)
	f.out = append(f.out, Eviction{Line: n, TaskID: old.TaskID, Reason: EvictionForgotten, EvictedAt: old.Line})
	f.gone[f.goneHead] = e
	f.goneByID[e.TaskID] = f.goneHead
	f.goneHead = (f.goneHead + 1) % max
}

// Evicted is the number of evicted task ids the Filter remembers.
func (f *Filter) Evicted() int { return len(f.goneByID) }

// Open is the number of open tasks.
func (f *Filter) Open() int { return f.order.len }

// lru is a list of open tasks threaded through one slice of nodes, so that it is a single
// object for the collector however many tasks are open. Node 0 is the list's head: its
// next is the front (least recently used), its prev the back. A removed node's slot is
// reused.
type lru struct {
	nodes []lruNode
	free  []int32
	len   int
}

type lruNode struct {
	id         string
	last       int // the last input line with a message for it
	prev, next int32
}

func newLRU() lru { return lru{nodes: make([]lruNode, 1)} }

func (l *lru) front() int32 { return l.nodes[0].next }

// pushBack adds a node for id at the back, and gives its index.
func (l *lru) pushBack(id string, last int) int32 {
	var e int32
	if k := len(l.free); k > 0 {
		e, l.free = l.free[k-1], l.free[:k-1]
	} else {
		e = int32(len(l.nodes))
		l.nodes = append(l.nodes, lruNode{})
	}
	l.nodes[e] = lruNode{id: id, last: last}
	l.link(e)
	l.len++
	return e
}

// link puts the unlinked node e at the back.
func (l *lru) link(e int32) {
	back := l.nodes[0].prev
	l.nodes[e].prev, l.nodes[e].next = back, 0
	l.nodes[back].next = e
	l.nodes[0].prev = e
}

func (l *lru) unlink(e int32) {
	p, x := l.nodes[e].prev, l.nodes[e].next
	l.nodes[p].next = x
	l.nodes[x].prev = p
}

func (l *lru) moveToBack(e int32) {
	l.unlink(e)
	l.link(e)
}

func (l *lru) remove(e int32) {
	l.unlink(e)
	l.nodes[e] = lruNode{}
	l.free = append(l.free, e)
	l.len--
}
