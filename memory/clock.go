package memory

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/agentspine/spine/clock"
)

// Timer schedules the Dreamer's settle delay and optional interval.
type Timer interface {
	After(d time.Duration) <-chan time.Time
}

// IDSource names new Megrams. Its IDs must be unique over the life of the store and
// valid IDs ([A-Za-z0-9._-], at most 64 bytes): the store checks the IDs a writer supplies
// against the stored ones, but trusts the IDs it mints.
type IDSource interface{ NewID() string }

// SystemTimer waits on the host clock.
type SystemTimer struct{}

// After is time.After.
func (SystemTimer) After(d time.Duration) <-chan time.Time { return time.After(d) }

var (
	_ Timer    = SystemTimer{}
	_ IDSource = (*RandomIDs)(nil)
	_ IDSource = (*SequentialIDs)(nil)
)

// RandomIDs makes the store's own IDs (for Megrams written or imported without one, and
// for the Dreamer's C and K entries) in the one ID scheme of every Megram: 128 bits as 32
// lowercase hex digits, the form the control plane's engine.RandomIDs gives the Megrams
// GGS writes in a live run (GGS takes its IDs from the injected engine.IDSource, so tests
// and replays get theirs from a deterministic source). Here the first 48 bits are the
// milliseconds from Clock and the other 80 come from Rand, so IDs made later sort later
// and an index scan lists the store's own Megrams roughly in creation order.
//
// IDs are checked for their characters, not their scheme (see validID): stores written
// before the scheme hold 26-character ULIDs, and those are read, exported and imported as
// they are.
type RandomIDs struct {
	Clock clock.Clock
	Rand  io.Reader // crypto/rand.Reader when nil

	mu   sync.Mutex
	pool []byte // random bytes read ahead: one read per 409 IDs, not one system call each
}

// NewID returns a fresh ID; it panics only if the random source fails, which for
// crypto/rand means the host is unusable.
func (g *RandomIDs) NewID() string {
	var b [16]byte
	ms := uint64(g.Clock.Now().UnixMilli())
	for i := 0; i < 6; i++ {
		b[5-i] = byte(ms >> (8 * i))
	}
	g.mu.Lock()
	if len(g.pool) < 10 {
		r := g.Rand
		if r == nil {
			r = rand.Reader
		}
		g.pool = make([]byte, 4096)
		if _, err := io.ReadFull(r, g.pool); err != nil {
			g.mu.Unlock()
			panic(fmt.Sprintf("memory: random ID source failed: %v", err))
		}
	}
	copy(b[6:], g.pool[:10])
	g.pool = g.pool[10:]
	g.mu.Unlock()
	return hex.EncodeToString(b[:])
}

// SequentialIDs makes Prefix followed by a 12-digit counter starting at 1: deterministic,
// sortable IDs for tests, fixtures and replays. The counter restarts with the process, so
// reopening a store needs a new Prefix.
type SequentialIDs struct {
	Prefix string

	mu sync.Mutex
	n  uint64
}

// NewID returns the next ID of the sequence.
func (g *SequentialIDs) NewID() string {
	g.mu.Lock()
	g.n++
	n := g.n
	g.mu.Unlock()
	return fmt.Sprintf("%s%012d", g.Prefix, n)
}
