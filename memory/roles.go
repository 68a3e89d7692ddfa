package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
)

// RoleGGS is the role name of the Goal Gradient Solver, the only writer of shared memory.
const RoleGGS = "R7"

// ErrWriterRefused is wrapped by every WriterFor refusal.
var ErrWriterRefused = errors.New("memory: writer refused")

// Refusal records a role that asked for a writer and did not get one. The Auditor reports
// each as a non-GGS memory write.
type Refusal struct {
	Role   string    `json:"role"`
	At     time.Time `json:"at"`
	Reason string    `json:"reason"`
}

// isGGS accepts "R7" and "GGS" in any case.
func isGGS(role string) bool {
	role = strings.TrimSpace(role)
	return strings.EqualFold(role, RoleGGS) || strings.EqualFold(role, "GGS")
}

// WriterFor returns the writer of a named role. Only GGS ("R7" or "GGS") gets one; every
// other role is refused with an error wrapping ErrWriterRefused, and the refusal is
// counted, kept (Refusals) and passed to Options.OnRefusal.
func (s *Service) WriterFor(role string) (Writer, error) {
	if isGGS(role) {
		return ggsWriter{s}, nil
	}
	reason := "GGS (R7) is the only writer of shared memory"
	ref := Refusal{Role: role, At: s.now(), Reason: reason}
	s.refused.Add(1)
	s.refusalMu.Lock()
	s.refusals = append(s.refusals, ref)
	s.refusalMu.Unlock()
	if s.onRefusal != nil {
		s.onRefusal(ref)
	}
	return nil, fmt.Errorf("%w: role %q asked for a writer: %s", ErrWriterRefused, role, reason)
}

// Refusals lists the refused WriterFor requests in the order they happened.
func (s *Service) Refusals() []Refusal {
	s.refusalMu.Lock()
	defer s.refusalMu.Unlock()
	return append([]Refusal(nil), s.refusals...)
}

// ggsWriter is GGS's handle; its writes are recorded with origin R7.
type ggsWriter struct{ s *Service }

func (w ggsWriter) Write(m contract.Megram) { _ = w.s.enqueuePut(m, OriginGGS) }

func (w ggsWriter) RecordNegativeFeedback(ctx context.Context, ruleID, content string) {
	w.s.RecordNegativeFeedback(ctx, ruleID, content)
}

// RoleUser is the user: it may judge a finished task, never write one.
const RoleUser = "User"

// OriginUserFeedback is the origin of a negative feedback the user recorded.
const OriginUserFeedback = "user:feedback"

// FeedbackRecorder is the user's handle on memory: a verdict against a stored record.
type FeedbackRecorder interface {
	RecordNegativeFeedback(ctx context.Context, ruleID, content string)
}

// UserFeedback returns the user's handle. It has no Write, so GGS stays the only writer of
// task outcomes: the user's verdict is a record of its own kind (state negative_feedback,
// origin user:feedback) appended against an outcome GGS wrote, on that outcome's tag pair.
func (s *Service) UserFeedback() FeedbackRecorder { return userFeedback{s} }

type userFeedback struct{ s *Service }

func (u userFeedback) RecordNegativeFeedback(_ context.Context, ruleID, content string) {
	_, _ = u.s.recordFeedback(ruleID, content, OriginUserFeedback, nil)
}
