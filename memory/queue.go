package memory

import (
	"context"
	"sync"
	"time"
)

type opKind uint8

const (
	opPut      opKind = iota // append a prepared record
	opFeedback               // append a negative-σ record for a rule, resolved by the writer
	opRecall                 // set recall:<id>
)

// op is one queued operation.
type op struct {
	kind    opKind
	rec     Record // opPut; for opFeedback the ID, times and origin are already set
	minted  bool   // the ID came from the store's IDSource, so it is new by contract
	enc     []byte // opPut: the megram: value, encoded by the writer's goroutine
	ruleID  string // opFeedback
	content string // opFeedback
	recall  recallSet
}

// queue is an unbounded FIFO of fixed-size chunks: pushing never waits for the storage
// and never copies the backlog, so a writer is never blocked by I/O. The price is memory
// while the storage is slower than the writers.
type queue struct {
	mu       sync.Mutex
	chunks   [][]op
	free     [][]op // drained chunks kept for reuse
	closed   bool
	wake     chan struct{}
	pushed   uint64
	done     uint64
	progress chan struct{} // closed and replaced whenever done advances
}

// queueChunk is the number of operations per chunk.
const queueChunk = 256

func newQueue() *queue {
	return &queue{wake: make(chan struct{}, 1), progress: make(chan struct{})}
}

// push appends o; it reports false after close.
func (q *queue) push(o op) bool {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return false
	}
	n := len(q.chunks)
	if n == 0 || len(q.chunks[n-1]) == queueChunk {
		var c []op
		if k := len(q.free); k > 0 {
			c, q.free = q.free[k-1], q.free[:k-1]
		} else {
			c = make([]op, 0, queueChunk)
		}
		q.chunks = append(q.chunks, c)
		n++
	}
	q.chunks[n-1] = append(q.chunks[n-1], o)
	q.pushed++
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return true
}

// takeAll waits for operations and returns every queued chunk; ok is false once the
// queue is closed and empty.
func (q *queue) takeAll() (chunks [][]op, ok bool) {
	for {
		q.mu.Lock()
		if len(q.chunks) > 0 {
			chunks, q.chunks = q.chunks, nil
			q.mu.Unlock()
			return chunks, true
		}
		if q.closed {
			q.mu.Unlock()
			return nil, false
		}
		q.mu.Unlock()
		<-q.wake
	}
}

// recycle keeps a few drained chunks for reuse.
func (q *queue) recycle(chunks [][]op) {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, c := range chunks {
		if len(q.free) >= 64 {
			return
		}
		clear(c)
		q.free = append(q.free, c[:0])
	}
}

func (q *queue) markDone(n int) {
	q.mu.Lock()
	q.done += uint64(n)
	close(q.progress)
	q.progress = make(chan struct{})
	q.mu.Unlock()
}

func (q *queue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
}

// wait blocks until every operation pushed before the call has been handled.
func (q *queue) wait(ctx context.Context) error {
	q.mu.Lock()
	target := q.pushed
	for q.done < target {
		ch := q.progress
		q.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
		q.mu.Lock()
	}
	q.mu.Unlock()
	return nil
}

// writeLoop is the single goroutine that commits queued operations in batches.
func (s *Service) writeLoop() {
	defer s.writerWG.Done()
	for {
		chunks, ok := s.q.takeAll()
		if !ok {
			return
		}
		// Commit whole chunks, at least maxBatch operations per storage batch when the
		// backlog allows: one journal write and fsync for all of them.
		for rest := chunks; len(rest) > 0; {
			n, ops := 0, 0
			for n < len(rest) && (ops == 0 || ops+len(rest[n]) <= s.maxBatch) {
				ops += len(rest[n])
				n++
			}
			s.commit(rest[:n])
			s.q.markDone(ops)
			rest = rest[n:]
		}
		s.q.recycle(chunks)
	}
}

// commit turns one chunk of operations into a storage batch. Duplicate IDs are refused
// (the store is append-only); feedback is resolved against its rule; recall updates for
// records that no longer exist are dropped.
func (s *Service) commit(chunks [][]op) {
	s.applyMu.Lock()
	defer s.applyMu.Unlock()
	var c change
	var ids []string
	inBatch := make(map[string]bool, len(chunks)*queueChunk)
	for _, chunk := range chunks {
		for i := range chunk {
			s.commitOp(&chunk[i], &c, &ids, inBatch)
		}
	}
	if c.empty() {
		return
	}
	if err := s.be.apply(&c); err != nil {
		s.failed.Add(int64(len(c.puts) + len(c.recalls)))
		ferr := errorf("commit of %d megrams failed, none is stored: %v", len(c.puts), err)
		s.report(ferr)
		s.lose(ids, len(c.puts), ferr)
		return
	}
	s.written.Add(int64(len(ids)))
	if len(ids) > 0 && s.onDurable != nil {
		s.onDurable(ids)
	}
	s.tallyOutcome(ids, nil)
}

// commitOp adds one operation to the batch being built.
func (s *Service) commitOp(o *op, c *change, ids *[]string, inBatch map[string]bool) {
	switch o.kind {
	case opPut:
		if s.admit(o.rec, o.minted, inBatch) {
			c.puts = append(c.puts, o.rec)
			c.encoded = append(c.encoded, o.enc)
			*ids = append(*ids, o.rec.ID)
		}
	case opFeedback:
		r, err := s.resolveFeedback(*o)
		if err != nil {
			s.rejectMegram(o.rec.ID, err)
			return
		}
		if s.admit(r, true, inBatch) {
			c.puts = append(c.puts, r)
			c.encoded = append(c.encoded, nil)
			*ids = append(*ids, r.ID)
		}
	case opRecall:
		if inBatch[o.recall.ID] {
			c.recalls = append(c.recalls, o.recall)
			return
		}
		if ok, err := s.be.has(o.recall.ID); err != nil {
			s.failed.Add(1)
			s.report(errorf("recall %s: %v", o.recall.ID, err))
		} else if ok {
			c.recalls = append(c.recalls, o.recall)
		}
	}
}

// admit refuses a record whose ID is already stored or already in this batch. IDs the
// store minted itself are new by the IDSource contract and skip the storage lookup, which
// is the most expensive step of a write.
func (s *Service) admit(r Record, minted bool, inBatch map[string]bool) bool {
	if inBatch[r.ID] {
		s.rejectMegram(r.ID, errorf("megram %s: duplicate ID in the same batch; the store never overwrites", r.ID))
		return false
	}
	if minted {
		inBatch[r.ID] = true
		return true
	}
	ok, err := s.be.has(r.ID)
	if err != nil {
		s.failed.Add(1)
		ferr := errorf("megram %s: %v", r.ID, err)
		s.report(ferr)
		s.lose([]string{r.ID}, 1, ferr)
		return false
	}
	if ok {
		s.rejectMegram(r.ID, errorf("megram %s: ID already stored; the store never overwrites", r.ID))
		return false
	}
	inBatch[r.ID] = true
	return true
}

// resolveFeedback builds the negative-σ record for a feedback on a stored rule.
func (s *Service) resolveFeedback(o op) (Record, error) {
	rule, err := s.be.get(o.ruleID)
	if err != nil {
		return Record{}, errorf("negative feedback on rule %s: %v", o.ruleID, err)
	}
	r := o.rec
	r.Space, r.Entity = rule.Space, rule.Entity
	r.Content = o.content
	if err := r.validate(); err != nil {
		return Record{}, errorf("negative feedback on rule %s: %v", o.ruleID, err)
	}
	return r, nil
}

// recallAll queues recall updates for the given records at t.
func (s *Service) recallAll(ids []string, t time.Time) {
	for _, id := range ids {
		if s.q.push(op{kind: opRecall, recall: recallSet{ID: id, At: t}}) {
			s.enqueued.Add(1)
		}
	}
}
