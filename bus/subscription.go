package bus

import (
	"fmt"
	"sync"

	"github.com/agentspine/spine/spine/trace"
)

// subscription is one subscriber's queue and the goroutine that empties it.
type subscription struct {
	name    string
	deliver func(trace.Message)
	done    chan struct{}

	mu         sync.Mutex
	wake       *sync.Cond // the queue got a message, or the bus closed
	progress   *sync.Cond // a batch was delivered
	q          queue
	closed     bool
	waiting    bool
	enqueued   int64
	delivered  int64
	maxPending int
	panics     int64
	firstPanic error
}

func newSubscription(name string, deliver func(trace.Message)) *subscription {
	s := &subscription{name: name, deliver: deliver, done: make(chan struct{})}
	s.wake = sync.NewCond(&s.mu)
	s.progress = sync.NewCond(&s.mu)
	return s
}

func (s *subscription) enqueue(m trace.Message) {
	s.mu.Lock()
	s.q.push(m)
	s.enqueued++
	if s.q.len > s.maxPending {
		s.maxPending = s.q.len
	}
	if s.waiting {
		s.wake.Signal()
	}
	s.mu.Unlock()
}

// run delivers until the bus is closed and the queue is empty. It takes the whole queue
// at once and delivers it without holding the lock, so publishers only ever wait for
// the swap.
func (s *subscription) run() {
	defer close(s.done)
	s.mu.Lock()
	for {
		for s.q.len == 0 && !s.closed {
			s.waiting = true
			s.wake.Wait()
			s.waiting = false
		}
		if s.q.len == 0 {
			s.mu.Unlock()
			return
		}
		batch := s.q.takeAll()
		s.mu.Unlock()
		var n int64
		for c := batch; c != nil; c = c.next {
			for i := 0; i < c.n; i++ {
				s.call(c.msgs[i])
			}
			n += int64(c.n)
		}
		s.mu.Lock()
		s.q.recycle(batch)
		s.delivered += n
		s.progress.Broadcast()
	}
}

func (s *subscription) call(m trace.Message) {
	defer func() {
		if r := recover(); r != nil {
			s.mu.Lock()
			s.panics++
			if s.firstPanic == nil {
				s.firstPanic = fmt.Errorf("bus: subscriber %q panicked on seq %d (%s from %s to %s): %v", s.name, m.Seq, m.Type, m.From, m.To, r)
			}
			s.mu.Unlock()
		}
	}()
	s.deliver(m)
}

func (s *subscription) sync() {
	s.mu.Lock()
	target := s.enqueued
	for s.delivered < target {
		s.progress.Wait()
	}
	s.mu.Unlock()
}

func (s *subscription) close() {
	s.mu.Lock()
	s.closed = true
	s.wake.Signal()
	s.mu.Unlock()
}

func (s *subscription) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.firstPanic != nil && s.panics > 1 {
		return fmt.Errorf("%w (and %d more panics)", s.firstPanic, s.panics-1)
	}
	return s.firstPanic
}

func (s *subscription) stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Stats{Name: s.name, Delivered: s.delivered, Pending: s.q.len, MaxPending: s.maxPending, Panics: s.panics}
}
