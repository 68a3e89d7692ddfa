package sandbox

import (
	"fmt"
	"strings"
	"sync"
)

// capBuffer keeps the first and the last max/2 bytes written to it and counts the rest,
// so a noisy command shows how it started and how it ended.
type capBuffer struct {
	mu    sync.Mutex
	half  int
	head  []byte
	tail  []byte // holds up to 2·half bytes; trimmed to the last half when read
	total int64
}

func newCapBuffer(max int) *capBuffer {
	h := max / 2
	if h < 1 {
		h = 1
	}
	return &capBuffer{half: h}
}

func (b *capBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	b.total += int64(n)
	if room := b.half - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) >= b.half {
		b.tail = append(b.tail[:0], p[len(p)-b.half:]...)
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if len(b.tail) > 2*b.half {
		b.tail = append(b.tail[:0], b.tail[len(b.tail)-b.half:]...)
	}
	return n, nil
}

// String returns what was kept, with a marker where bytes were left out, and whether
// anything was.
func (b *capBuffer) String() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail := b.tail
	if len(tail) > b.half {
		tail = tail[len(tail)-b.half:]
	}
	omitted := b.total - int64(len(b.head)) - int64(len(tail))
	if omitted <= 0 {
		return strings.ToValidUTF8(string(b.head)+string(tail), "\uFFFD"), false
	}
	head := strings.ToValidUTF8(string(b.head), "\uFFFD")
	if !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return head + fmt.Sprintf("[output truncated: %d bytes omitted]\n", omitted) +
		strings.ToValidUTF8(string(tail), "\uFFFD"), true
}
