package llm

import (
	"context"
	"io"
	"net/http"
	"sync"
)

// go-openai's errors carry the HTTP status but not the response headers, so the
// Retry-After header is captured here, on the way back through the HTTP client, and
// handed to the retry loop through the request's context.

// captureKey is the context key of an attempt's capture slot.
type captureKey struct{}

// captured holds what one attempt's HTTP response said that go-openai does not pass on:
// its status, Retry-After and, for a 2xx, the start of its body (go-openai drops the body
// of a completion it could not decode, or one that carries an error and no choice).
type captured struct {
	mu         sync.Mutex
	status     int
	retryAfter string
	body       []byte
}

// maxCapturedBody bounds the start of a 2xx body kept for an error message.
const maxCapturedBody = 4096

func (c *captured) addBody(p []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := maxCapturedBody - len(c.body); room > 0 {
		c.body = append(c.body, p[:min(len(p), room)]...)
	}
}

func (c *captured) bodyStart() []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.body
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
			if resp.StatusCode/100 == 2 && resp.Body != nil {
				resp.Body = teeBody{resp.Body, c}
			}
		}
	}
	return resp, err
}

// teeBody keeps the start of a body in its capture as go-openai reads it.
type teeBody struct {
	io.ReadCloser
	c *captured
}

func (t teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.c.addBody(p[:n])
	return n, err
}
