package llm

import (
	"context"
	"slices"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/secrets"
)

// ScrubModel wraps m so that no secret sc knows crosses it in either direction: the
// request's messages are scrubbed before m sends them, and the reply's text, its tool
// calls, its attempt log's errors and the error are scrubbed before the caller (and so
// the journal) sees them. A model that quotes a key it read gets "[REDACTED]" recorded
// and sent back instead.
// The caller's request is not modified.
func ScrubModel(m ChatModel, sc *secrets.Scrubber) ChatModel {
	if sc.Len() == 0 {
		return m
	}
	return scrubModel{m: m, sc: sc}
}

type scrubModel struct {
	m  ChatModel
	sc *secrets.Scrubber
}

func (s scrubModel) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	req.Messages = s.messages(req.Messages)
	resp, err := s.m.Complete(ctx, req)
	resp.Content = s.sc.String(resp.Content)
	resp.ReasoningContent = s.sc.String(resp.ReasoningContent)
	resp.ToolCalls = s.toolCalls(resp.ToolCalls)
	resp.AttemptLog = scrubAttempts(resp.AttemptLog, s.sc.String)
	return resp, s.sc.Error(err)
}

// messages returns ms scrubbed, copied only when something changed.
func (s scrubModel) messages(ms []contract.ModelMessage) []contract.ModelMessage {
	out := ms
	for i, m := range ms {
		c := m
		c.Content = s.sc.String(m.Content)
		c.ToolCalls = s.toolCalls(m.ToolCalls)
		if c.Content == m.Content && sameSlice(c.ToolCalls, m.ToolCalls) {
			continue
		}
		if sameSlice(out, ms) {
			out = slices.Clone(ms)
		}
		out[i] = c
	}
	return out
}

// toolCalls returns tcs scrubbed, copied only when something changed. Replacing a
// secret inside a JSON string keeps the arguments JSON: "[REDACTED]" needs no escaping.
func (s scrubModel) toolCalls(tcs []contract.ModelToolCall) []contract.ModelToolCall {
	out := tcs
	for i, tc := range tcs {
		c := contract.ModelToolCall{ID: s.sc.String(tc.ID), Name: s.sc.String(tc.Name), Arguments: s.sc.String(tc.Arguments)}
		if c == tc {
			continue
		}
		if sameSlice(out, tcs) {
			out = slices.Clone(tcs)
		}
		out[i] = c
	}
	return out
}

// sameSlice tells whether a and b share their backing array (or are both empty).
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
