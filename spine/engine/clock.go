package engine

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
	"time"
)

// Clock is the only source of time in the control plane. Every reading it gives lands in
// the trace, so a replay that serves the same readings produces the same trace.
type Clock interface {
	Now() time.Time
}

// IDSource generates identifiers (run ids and the like). Like the clock it is injected, so
// replays and tests get the same ids.
type IDSource interface {
	NewID() string
}

// SystemClock reads the wall clock. Use it for live runs only.
type SystemClock struct{}

var _ Clock = SystemClock{}

// Now returns the current UTC time.
func (SystemClock) Now() time.Time { return time.Now().UTC() }

// StepClock is a deterministic clock: it starts at Start and advances by Step on every
// reading. It is safe for concurrent use.
type StepClock struct {
	mu   sync.Mutex
	next time.Time
	step time.Duration
}

var _ Clock = (*StepClock)(nil)

// NewStepClock returns a clock whose first reading is start.
func NewStepClock(start time.Time, step time.Duration) *StepClock {
	return &StepClock{next: start.UTC(), step: step}
}

// Now returns the next reading.
func (c *StepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.next
	c.next = c.next.Add(c.step)
	return t
}

// SeqIDs generates Prefix-1, Prefix-2, …; it is safe for concurrent use.
type SeqIDs struct {
	Prefix string
	mu     sync.Mutex
	n      int
}

var _ IDSource = (*SeqIDs)(nil)

// NewID returns the next id in sequence.
func (s *SeqIDs) NewID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	return fmt.Sprintf("%s-%d", s.Prefix, s.n)
}

// RandomIDs generates random 128-bit hex ids from crypto/rand. Use it for live runs only.
type RandomIDs struct{}

var _ IDSource = RandomIDs{}

// NewID returns a fresh random id.
func (RandomIDs) NewID() string {
	var b [16]byte
	rand.Read(b[:]) // crypto/rand.Read never fails: it crashes the program first
	return hex.EncodeToString(b[:])
}
