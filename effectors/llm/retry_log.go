package llm

import (
	"context"
	"fmt"
	"time"
)

// Kinds of an attempt that failed below HTTP, or whose body could not be read.
const (
	KindTimeout    = "timeout"            // no complete answer within the per-call timeout
	KindConnection = "connection"         // refused, reset or dropped before a complete answer
	KindNonJSON    = "non_json_body"      // the body is not the OpenAI JSON (an HTML error page, a proxy's text)
	KindCanceled   = "canceled"           // the caller's context ended during the attempt
	KindTransport  = "transport"          // any other failure of the HTTP client
	KindTooLarge   = "response_too_large" // the answer is over the size limit (ResponseTooLargeError)
)

// Attempt is one HTTP call made by a Complete, as the journal keeps it: what came back
// and, when another attempt followed, the wait chosen before it. It holds no wall-clock
// reading, so a recorded exchange replays byte for byte. Error has the API key scrubbed
// and is cut to a few hundred characters, like the call's error.
type Attempt struct {
	N            int    `json:"n"`
	Status       int    `json:"status,omitempty"` // HTTP status; 0 when none arrived
	Kind         string `json:"kind,omitempty"`   // one of the Kind constants, "" for a plain status
	RetryAfterMS *int64 `json:"retry_after_ms,omitempty"`
	WaitMS       *int64 `json:"wait_ms,omitempty"`
	Error        string `json:"error,omitempty"`
}

// RetryAfter is the delay the endpoint asked for; ok is false when it named none.
func (a Attempt) RetryAfter() (time.Duration, bool) {
	if a.RetryAfterMS == nil {
		return 0, false
	}
	return time.Duration(*a.RetryAfterMS) * time.Millisecond, true
}

// Wait is the delay chosen before the next attempt; ok is false when none followed.
func (a Attempt) Wait() (time.Duration, bool) {
	if a.WaitMS == nil {
		return 0, false
	}
	return time.Duration(*a.WaitMS) * time.Millisecond, true
}

// Cause says briefly why the attempt failed: "HTTP 429", "timeout", "HTTP 502 with a
// non-JSON body".
func (a Attempt) Cause() string {
	switch {
	case a.Kind == KindConnection && a.Status != 0:
		return fmt.Sprintf("HTTP %d answer cut short", a.Status)
	case a.Kind == KindConnection:
		return "connection refused or dropped"
	case a.Kind == KindNonJSON && a.Status != 0:
		return fmt.Sprintf("HTTP %d with a non-JSON body", a.Status)
	case a.Kind != "":
		return a.Kind
	case a.Status != 0:
		return fmt.Sprintf("HTTP %d", a.Status)
	default:
		return "failed"
	}
}

// Short is the cause in a word or a number, for a status line: "429", "timeout".
func (a Attempt) Short() string {
	switch {
	case a.Kind != "" && a.Kind != KindNonJSON:
		return a.Kind
	case a.Status != 0:
		return fmt.Sprint(a.Status)
	case a.Kind != "":
		return a.Kind
	default:
		return "failed"
	}
}

func millis(d time.Duration) *int64 {
	ms := d.Milliseconds()
	return &ms
}

// scrubAttempts returns as with every error text passed through scrub, copied only when
// something changed.
func scrubAttempts(as []Attempt, scrub func(string) string) []Attempt {
	out := as
	for i, a := range as {
		e := scrub(a.Error)
		if e == a.Error {
			continue
		}
		if sameSlice(out, as) {
			out = append([]Attempt(nil), as...)
		}
		out[i].Error = e
	}
	return out
}

// Retry is what a retry hook hears when an attempt failed and another will be made,
// before the wait: which attempt failed and why, and how long the client waits.
type Retry struct {
	Role   RoleName // the role whose call it is, when the caller named one
	Model  string
	Failed Attempt // the failed attempt, its wait set
	Max    int     // attempts allowed, the first one included
}

// Next is the number of the attempt about to be made.
func (r Retry) Next() int { return r.Failed.N + 1 }

// Wait is the delay before the next attempt.
func (r Retry) Wait() time.Duration {
	d, _ := r.Failed.Wait()
	return d
}

// Cause is the failure with the Retry-After the endpoint sent, if any:
// "HTTP 429 (Retry-After 2s)".
func (r Retry) Cause() string {
	s := r.Failed.Cause()
	if d, ok := r.Failed.RetryAfter(); ok {
		s += " (Retry-After " + d.String() + ")"
	}
	return s
}

// retryHookKey is the context key of the retry hook.
type retryHookKey struct{}

// WithRetryHook returns ctx carrying fn: every OpenAIModel call made under it calls fn,
// synchronously and before waiting, each time it is about to retry. fn must not block.
// The hook rides on the context rather than the client because one client serves
// several roles; a role's wrapper sets Retry.Role by wrapping the hook it finds.
func WithRetryHook(ctx context.Context, fn func(Retry)) context.Context {
	return context.WithValue(ctx, retryHookKey{}, fn)
}

// RetryHookFrom returns the hook ctx carries, or nil.
func RetryHookFrom(ctx context.Context) func(Retry) {
	fn, _ := ctx.Value(retryHookKey{}).(func(Retry))
	return fn
}
