package memory

import (
	"context"

	"fmt"
	"sync"

	"github.com/agentspine/spine/contract"
)

// WriteFailure is one Megram that did not reach the store, and why.
type WriteFailure struct {
	ID    string `json:"id"`
	Error string `json:"error"`
}

// TallyReport says what became of the Megrams one WriteTally queued.
type TallyReport struct {
	Sent    int            `json:"sent"`    // Megrams handed to the writer
	Durable int            `json:"durable"` // acknowledged as durable (see Service.Write)
	Failed  []WriteFailure `json:"failed"`  // rejected or lost to a storage error, in order
	// Pending were neither durable nor failed when the report was taken: the wait for
	// the queue was cut short.
	Pending int `json:"pending"`
}

// Lost is the number of Megrams the writer sent that are not known to be stored.
func (r TallyReport) Lost() int { return len(r.Failed) + r.Pending }

// WriteTally is a Writer that follows every Megram it queues until the store has made it
// durable or reported it failed, so one run can tell whether all of its writes landed,
// whatever else writes to the same store. Obtain one with Service.TallyWriterFor; Stop it
// when done.
type WriteTally struct {
	s *Service
	w Writer

	mu      sync.Mutex
	sent    int
	pending map[string]bool
	durable int
	failed  []WriteFailure
}

var _ Writer = (*WriteTally)(nil)

// TallyWriterFor is WriterFor with a tally of the writes: only GGS gets one.
func (s *Service) TallyWriterFor(role string) (*WriteTally, error) {
	w, err := s.WriterFor(role)
	if err != nil {
		return nil, err
	}
	t := &WriteTally{s: s, w: w, pending: map[string]bool{}}
	s.tallyMu.Lock()
	if s.tallies == nil {
		s.tallies = map[*WriteTally]struct{}{}
	}
	s.tallies[t] = struct{}{}
	s.tallyN.Add(1)
	s.tallyMu.Unlock()
	return t, nil
}

// Write queues m like Writer.Write. A Megram without an ID gets one here, so that its
// outcome can be followed.
func (t *WriteTally) Write(m contract.Megram) {
	if m.ID == "" {
		m.ID = t.s.ids.NewID()
	}
	t.mu.Lock()
	t.sent++
	t.pending[m.ID] = true
	t.mu.Unlock()
	if err := t.s.enqueuePut(m, OriginGGS); err != nil {
		t.resolve(m.ID, err)
	}
}

// RecordNegativeFeedback queues a feedback record like Writer.RecordNegativeFeedback and
// follows it.
func (t *WriteTally) RecordNegativeFeedback(ctx context.Context, ruleID, content string) {
	t.mu.Lock()
	t.sent++
	t.mu.Unlock()
	id, err := t.s.recordFeedback(ruleID, content, OriginGGS, func(id string) {
		t.mu.Lock()
		t.pending[id] = true
		t.mu.Unlock()
	})
	if err != nil {
		if id == "" {
			t.mu.Lock()
			t.failed = append(t.failed, WriteFailure{Error: err.Error()})
			t.mu.Unlock()
			return
		}
		t.resolve(id, err)
	}
}

// resolve records the outcome of one followed Megram; err nil means durable.
func (t *WriteTally) resolve(id string, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.pending[id] {
		return
	}
	delete(t.pending, id)
	if err == nil {
		t.durable++
		return
	}
	t.failed = append(t.failed, WriteFailure{ID: id, Error: err.Error()})
}

// Report waits until every Megram queued so far is durable or failed (or ctx ends) and
// says what became of each.
func (t *WriteTally) Report(ctx context.Context) TallyReport {
	_ = t.s.q.wait(ctx) // a cut-short wait shows as Pending
	t.mu.Lock()
	defer t.mu.Unlock()
	return TallyReport{Sent: t.sent, Durable: t.durable, Failed: append([]WriteFailure(nil), t.failed...), Pending: len(t.pending)}
}

// Stop detaches the tally from the store; its Report stays as it was.
func (t *WriteTally) Stop() {
	t.s.tallyMu.Lock()
	if _, ok := t.s.tallies[t]; ok {
		delete(t.s.tallies, t)
		t.s.tallyN.Add(-1)
	}
	t.s.tallyMu.Unlock()
}

// tallyOutcome passes the outcome of Megrams to every tally; err nil means durable.
func (s *Service) tallyOutcome(ids []string, err error) {
	if s.tallyN.Load() == 0 {
		return
	}
	s.tallyMu.Lock()
	defer s.tallyMu.Unlock()
	for t := range s.tallies {
		for _, id := range ids {
			t.resolve(id, err)
		}
	}
}

// WriteError is what Flush returns when Megram writes failed or were rejected since the
// previous Flush.
type WriteError struct {
	Lost  int64 // Megrams that did not reach the store
	First error // the first of their errors
}

func (e *WriteError) Error() string {
	return fmt.Sprintf("memory: %d megram write(s) did not reach the store; first: %v", e.Lost, e.First)
}

func (e *WriteError) Unwrap() error { return e.First }

// lose counts n Megrams that did not reach the store with their error, for Flush and the
// Dreamer's report, and passes the error on as report does.
func (s *Service) lose(ids []string, n int, err error) {
	s.errMu.Lock()
	s.lost += int64(n)
	if s.lostErr == nil {
		s.lostErr = err
	}
	s.errMu.Unlock()
	s.tallyOutcome(ids, err)
}

// Flush waits until every operation queued before the call has been committed or
// reported as failed. It returns ctx's error when the wait is cut short, and a
// *WriteError when any Megram write failed or was rejected since the previous Flush (or
// since the store was opened). Writers never need it; tests and the CLI do.
func (s *Service) Flush(ctx context.Context) error {
	if err := s.q.wait(ctx); err != nil {
		return err
	}
	s.errMu.Lock()
	defer s.errMu.Unlock()
	n := s.lost - s.lostFlushed
	if n == 0 {
		return nil
	}
	err := &WriteError{Lost: n, First: s.lostErr}
	s.lostFlushed, s.lostErr = s.lost, nil
	return err
}

// LostWrites is the number of Megram writes that failed or were rejected since the store
// was opened.
func (s *Service) LostWrites() int64 {
	s.errMu.Lock()
	defer s.errMu.Unlock()
	return s.lost
}
