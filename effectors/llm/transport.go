package llm

import (
	"context"
	"net/http"
	"sync"
)

// go-openai's errors carry the HTTP status but not the response headers, so the
// Retry-After header is captured here, on the way back through the HTTP client, and
// handed to the retry loop through the request's context.

// captureKey is the context key of an attempt's capture slot.
type captureKey struct{}

// captured holds what one attempt's HTTP response said that go-openai does not pass on.
type captured struct {
	mu         sync.Mutex
	status     int
	retryAfter string
}

func (c *captured) set(status int, retryAfter string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.status, c.retryAfter = status, retryAfter
}

func (c *captured) get() (int, string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.status, c.retryAfter
}

func withCapture(ctx context.Context) (context.Context, *captured) {
	c := &captured{}
	return context.WithValue(ctx, captureKey{}, c), c
}

// capturingDoer is the go-openai HTTPDoer that records status and Retry-After per request.
type capturingDoer struct {
	client *http.Client
}

func (d capturingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if resp != nil {
		if c, ok := req.Context().Value(captureKey{}).(*captured); ok {
			c.set(resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	return resp, err
}
