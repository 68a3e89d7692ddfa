package engine

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync"
)

// IDSource generates identifiers (run ids and the like). Like the clock it is injected, so
// replays and tests get the same ids.
type IDSource interface {
	NewID() string
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
