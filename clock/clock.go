// Package clock is the project's one source of time: the Clock interface every
// component takes (the engine, GGS, the roles, the memory store, the model client's
// retry waits, the fleet), the wall clock for live runs and a stepping clock for tests
// and designed plays.
//
// It owns the notion of "now" and nothing else. It must not import any other package of
// the project (everything that reads time imports it, so it stays at the bottom of the
// graph), and only System may read the wall clock: a deterministic run injects another
// Clock, and every reading it gives lands in the trace or the store.
package clock

import (
	"sync"
	"time"
)

// Clock tells the time. In the control plane it is the only source of time: every
// reading lands in the trace, so a replay that serves the same readings produces the
// same trace.
type Clock interface {
	Now() time.Time
}

// System reads the wall clock. Use it for live runs only, at the edge (the CLI, a host
// process, a fleet worker).
type System struct{}

var _ Clock = System{}

// Now returns the current time in UTC, so that no reading carries the host's zone.
func (System) Now() time.Time { return time.Now().UTC() }

// Step is a deterministic clock: its first reading is the start it was made with, and
// every reading advances it by its step. It is safe for concurrent use.
type Step struct {
	mu   sync.Mutex
	next time.Time
	step time.Duration
}

var _ Clock = (*Step)(nil)

// NewStep returns a clock whose first reading is start (in UTC) and whose readings
// advance by step.
func NewStep(start time.Time, step time.Duration) *Step {
	return &Step{next: start.UTC(), step: step}
}

// Now returns the next reading.
func (c *Step) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.next
	c.next = c.next.Add(c.step)
	return t
}

// Fixed always reads the one time it holds, as given (its zone kept): a command's --now,
// which evaluates the memory store's decay at a chosen time.
type Fixed time.Time

var _ Clock = Fixed{}

// Now returns the fixed time.
func (f Fixed) Now() time.Time { return time.Time(f) }

// At is the clock of a command's --now: System when at is empty, else Fixed at the
// RFC 3339 time at.
func At(at string) (Clock, error) {
	if at == "" {
		return System{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, err
	}
	return Fixed(t), nil
}
