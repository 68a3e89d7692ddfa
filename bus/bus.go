package bus

import (
	"errors"
	"fmt"
	"sync"

	"github.com/agentspine/spine/spine/trace"
)

// ErrClosed is returned by Publish, PublishAt and Subscribe once the bus is closed.
var ErrClosed = errors.New("bus: closed")

// Bus fans messages out to its subscribers. It is safe for concurrent use.
type Bus struct {
	mu     sync.Mutex
	last   int64
	subs   []*subscription
	closed bool

	closeOnce sync.Once
	closeErr  error
}

// New returns an empty bus whose first message gets seq 1.
func New() *Bus { return &Bus{} }

// Subscribe attaches deliver under name. deliver is called from the subscription's own
// goroutine, once per message published from now on, in publish order. It must not keep
// the payload's bytes for writing. A panic in deliver is recovered, counted, and
// reported by Close; delivery goes on with the next message.
func (b *Bus) Subscribe(name string, deliver func(trace.Message)) error {
	if deliver == nil {
		return fmt.Errorf("bus: subscriber %q has no delivery function", name)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return ErrClosed
	}
	s := newSubscription(name, deliver)
	b.subs = append(b.subs, s)
	go s.run()
	return nil
}

// Publish stamps m with the next seq and queues it for every subscriber. It returns the
// stamped message. It never waits for a subscriber to consume anything.
func (b *Bus) Publish(m trace.Message) (trace.Message, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.publish(b.last+1, m)
}

// PublishAt publishes m with a seq the caller already assigned, typically the seq of
// the trace event the message was just journalled as, so that findings on a live bus
// name the same seq as findings on its trace. seq must exceed every seq published so far.
func (b *Bus) PublishAt(seq int64, m trace.Message) (trace.Message, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if seq <= b.last {
		return m, fmt.Errorf("bus: seq %d does not increase (last published %d)", seq, b.last)
	}
	return b.publish(seq, m)
}

func (b *Bus) publish(seq int64, m trace.Message) (trace.Message, error) {
	if b.closed {
		return m, ErrClosed
	}
	if missing := routable(&m); missing != "" {
		return m, fmt.Errorf("bus: a %q message from %q to %q has no %s; every message names from, to and type", m.Type, m.From, m.To, missing)
	}
	m.Seq = seq
	b.last = seq
	for _, s := range b.subs {
		s.enqueue(m)
	}
	return m, nil
}

// Sync waits until every subscriber has received every message published before the
// call. Publishing may go on meanwhile. A delivery function must not call it: it would
// wait for itself.
func (b *Bus) Sync() {
	b.mu.Lock()
	subs := append([]*subscription(nil), b.subs...)
	b.mu.Unlock()
	for _, s := range subs {
		s.sync()
	}
}

// Close stops publishing, waits until every subscriber has received everything
// published, and stops the delivery goroutines. It returns the panics of subscribers,
// if any. Later calls return the same result.
func (b *Bus) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		subs := b.subs
		b.mu.Unlock()
		var errs []error
		for _, s := range subs {
			s.close()
		}
		for _, s := range subs {
			<-s.done
			if err := s.failure(); err != nil {
				errs = append(errs, err)
			}
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// Stats describes one subscription's queue.
type Stats struct {
	Name       string
	Delivered  int64 // messages handed to the subscriber
	Pending    int   // messages queued, not yet handed over
	MaxPending int   // the largest Pending seen
	Panics     int64 // deliveries that panicked
}

// Stats reports every subscription, in the order they subscribed.
func (b *Bus) Stats() []Stats {
	b.mu.Lock()
	subs := append([]*subscription(nil), b.subs...)
	b.mu.Unlock()
	out := make([]Stats, len(subs))
	for i, s := range subs {
		out[i] = s.stats()
	}
	return out
}
