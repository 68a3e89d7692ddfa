package bus

import "github.com/agentspine/spine/spine/trace"

// chunkSize is the number of messages per queue chunk. Chunks keep a growing queue from
// ever copying what it already holds, so one Publish costs the same with ten pending
// messages as with a million.
const chunkSize = 256

type chunk struct {
	msgs [chunkSize]trace.Message
	n    int
	next *chunk
}

// queue is an unbounded FIFO of messages: a singly linked chain of chunks. It is not
// safe for concurrent use; the subscription's lock guards it.
type queue struct {
	head, tail *chunk
	len        int
	free       *chunk // chunks handed back after delivery, reused before allocating
	nfree      int
}

// maxFree bounds the chunks kept for reuse, so a burst does not pin its memory forever.
const maxFree = 8

func (q *queue) push(m trace.Message) {
	if q.tail == nil || q.tail.n == chunkSize {
		c := q.free
		if c != nil {
			q.free, c.next = c.next, nil
			q.nfree--
		} else {
			c = new(chunk)
		}
		if q.tail == nil {
			q.head = c
		} else {
			q.tail.next = c
		}
		q.tail = c
	}
	q.tail.msgs[q.tail.n] = m
	q.tail.n++
	q.len++
}

// takeAll empties the queue and returns its chain, oldest first.
func (q *queue) takeAll() *chunk {
	h := q.head
	q.head, q.tail, q.len = nil, nil, 0
	return h
}

// recycle takes back a delivered chain, cleared so it pins no payload.
func (q *queue) recycle(c *chunk) {
	for c != nil && q.nfree < maxFree {
		next := c.next
		clear(c.msgs[:c.n])
		c.n = 0
		c.next = q.free
		q.free = c
		q.nfree++
		c = next
	}
}
