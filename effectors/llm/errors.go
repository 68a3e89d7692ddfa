package llm

import (
	"errors"
	"fmt"
	"net/http"
	"time"
)

// maxErrorBody bounds how much of an error body an error message quotes.
const maxErrorBody = 300

// StatusError is an HTTP error status returned by the endpoint. Message comes from the
// response body with the API key scrubbed and is cut to a few hundred characters.
type StatusError struct {
	StatusCode int
	Message    string
}

func (e *StatusError) Error() string {
	text := http.StatusText(e.StatusCode)
	if e.Message == "" {
		return fmt.Sprintf("status %d %s", e.StatusCode, text)
	}
	return fmt.Sprintf("status %d %s: %s", e.StatusCode, text, e.Message)
}

// TimeoutError is an attempt that got no complete answer within the per-call timeout.
type TimeoutError struct {
	After time.Duration
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("no complete answer within the per-call timeout of %s", e.After)
}

// Timeout reports true, like net.Error.
func (e *TimeoutError) Timeout() bool { return true }

// TransportError is a failure below HTTP (connection refused or reset, a body that is not
// an OpenAI response). Message has the API key scrubbed.
type TransportError struct {
	Message string
}

func (e *TransportError) Error() string { return e.Message }

// ErrNoChoices is a 200 response whose choices are empty: the endpoint answered and said
// nothing, which is the endpoint failing, not the model breaking its role's contract.
var ErrNoChoices = errors.New("the response has no choices")

// ExhaustedError is returned when every allowed attempt failed with a retryable error.
type ExhaustedError struct {
	Model    string
	Attempts int
	Last     error
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("llm: model %q: gave up after %d attempts; last attempt: %v", e.Model, e.Attempts, e.Last)
}

// Unwrap gives the last attempt's error.
func (e *ExhaustedError) Unwrap() error { return e.Last }

// StatusCode is the HTTP status of the last attempt, 0 when it had none (timeout,
// connection failure).
func (e *ExhaustedError) StatusCode() int {
	var se *StatusError
	if errors.As(e.Last, &se) {
		return se.StatusCode
	}
	return 0
}

// KeyRefused tells whether err is the endpoint refusing the API key: HTTP 401 or 403,
// which the same key would meet again.
func KeyRefused(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && (se.StatusCode == http.StatusUnauthorized || se.StatusCode == http.StatusForbidden)
}

// ResponseTooLargeError is a model's answer over the size limit (contract.MaxModelResponse
// by default): an HTTP body longer than the limit, counted but not kept, or a decoded
// answer whose text is. The answer is refused, not retried (the same request would bring
// the same answer), and nothing of it is kept but its size.
type ResponseTooLargeError struct {
	Size    int64 // bytes
	AtLeast bool  // the body was longer still: counting stopped at Size
	Max     int64
}

func (e *ResponseTooLargeError) Error() string {
	at := ""
	if e.AtLeast {
		at = "at least "
	}
	return fmt.Sprintf("the response is %s%d bytes, over the %d-byte limit of a model's answer; it was refused unread", at, e.Size, e.Max)
}
