package llm

import (
	"context"
	"time"

	"github.com/agentspine/spine/contract"
)

// Kinds of an attempt that failed below HTTP, or whose body could not be read.
const (
	KindTimeout    = contract.AttemptTimeout
	KindConnection = contract.AttemptConnection
	KindNonJSON    = contract.AttemptNonJSON
	KindCanceled   = contract.AttemptCanceled
	KindTransport  = contract.AttemptTransport
	KindTooLarge   = contract.AttemptTooLarge // the answer is over the size limit (ResponseTooLargeError)
)

func millis(d time.Duration) *int64 {
	ms := d.Milliseconds()
	return &ms
}

// scrubAttempts returns as with every error text passed through scrub, copied only when
// something changed.
func scrubAttempts(as []contract.ModelAttempt, scrub func(string) string) []contract.ModelAttempt {
	out := as
	for i, a := range as {
		e := scrub(a.Error)
		if e == a.Error {
			continue
		}
		if sameSlice(out, as) {
			out = append([]contract.ModelAttempt(nil), as...)
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
	Failed contract.ModelAttempt // the failed attempt, its wait set
	Max    int                   // attempts allowed, the first one included
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
