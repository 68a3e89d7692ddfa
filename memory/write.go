package memory

import (
	"context"
	"fmt"

	"github.com/agentspine/spine/contract"
)

func errorf(format string, a ...any) error {
	return fmt.Errorf("memory: "+format, a...)
}

// Write queues m for appending and returns at once; it never waits for storage.
//
// Missing fields are filled in: ID from the IDSource, created_at from the Clock,
// last_recalled_at from created_at, level M. Writers may append M and K entries only; C
// entries come from consolidation. An invalid Megram, a Write after Close, or an ID that
// is already stored is rejected and reported through Options.OnError.
//
// Durability: a Megram is durable once its ID has been passed to Options.OnDurable. That
// happens after the LevelDB batch holding it has been written to the journal and, unless
// StorageOptions.NoSync is set, fsynced. From then on it survives the process being
// killed (and, with sync, the host crashing). Close returns only after every accepted
// Write has been committed or reported as failed.
func (s *Service) Write(m contract.Megram) { _ = s.enqueuePut(m, OriginGGS) }

// enqueuePut queues m; a rejected Megram is reported and its error returned.
func (s *Service) enqueuePut(m contract.Megram, origin string) error {
	minted := m.ID == ""
	r, err := s.prepare(m, origin)
	if err != nil {
		s.rejectMegram("", err) // the caller follows m.ID itself, if it has one
		return err
	}
	// Encoding on the caller's goroutine costs it about a microsecond and takes the
	// largest CPU share off the single storage goroutine.
	if !s.q.push(op{kind: opPut, rec: r, minted: minted, enc: encodeRecord(r)}) {
		err := errorf("megram %s: %w", r.ID, ErrClosed)
		s.rejectMegram("", err)
		return err
	}
	s.enqueued.Add(1)
	return nil
}

// prepare fills the defaults of a writer's Megram and checks it.
func (s *Service) prepare(m contract.Megram, origin string) (Record, error) {
	if m.ID == "" {
		m.ID = s.ids.NewID()
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = s.now()
	}
	if m.LastRecalledAt.IsZero() {
		m.LastRecalledAt = m.CreatedAt
	}
	if m.Level == "" {
		m.Level = contract.LevelM
	}
	r := Record{Megram: m, Origin: origin}
	r.normalise()
	if err := r.validate(); err != nil {
		return Record{}, errorf("megram %q (%s, %s): %v", m.ID, m.Space, m.Entity, err)
	}
	if !countsInPotentials(r.Level) {
		return Record{}, errorf("megram %s: level %s is not writable; writers append M or K, C entries come only from consolidation", r.ID, r.Level)
	}
	return r, nil
}

// RecordNegativeFeedback appends a negative-σ Megram against a stored rule (usually a C
// entry that proved stale), with the rule's tag pair, state negative_feedback and the
// Options.Feedback quantum. It returns at once; an unknown rule is reported through
// Options.OnError. The rule itself is never changed: if the feedback drives the pair's
// live decision against the rule, the Dreamer's trust bankruptcy demotes it.
func (s *Service) RecordNegativeFeedback(ctx context.Context, ruleID, content string) {
	_, _ = s.recordFeedback(ruleID, content, OriginGGS, nil)
}

// recordFeedback queues a negative feedback appended with the given origin and returns
// its ID (minted once the rule ID is valid) and, when it was rejected, the error.
// minted, when set, sees the ID before the record is queued.
func (s *Service) recordFeedback(ruleID, content, origin string, minted func(id string)) (string, error) {
	if err := validID(ruleID); err != nil {
		err = errorf("negative feedback: rule %v", err)
		s.rejectMegram("", err)
		return "", err
	}
	now := s.now()
	r := Record{
		Megram: contract.Megram{
			ID:             s.ids.NewID(),
			Level:          contract.LevelM,
			CreatedAt:      now,
			LastRecalledAt: now,
			State:          StateNegativeFeedback,
			F:              s.feedback.F,
			Sigma:          -abs(s.feedback.Sigma),
			K:              s.feedback.K,
		},
		Origin: origin,
	}
	if minted != nil {
		minted(r.ID)
	}
	if !s.q.push(op{kind: opFeedback, rec: r, ruleID: ruleID, content: content}) {
		err := errorf("negative feedback on rule %s: %w", ruleID, ErrClosed)
		s.rejectMegram("", err)
		return r.ID, err
	}
	s.enqueued.Add(1)
	return r.ID, nil
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
