package llm

import (
	"context"
	"errors"
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
// its status, Retry-After, for a 2xx the start of its body, and whether the body went
// over the size limit.
type captured struct {
	mu         sync.Mutex
	status     int
	retryAfter string
	body       []byte
	tooLarge   *ResponseTooLargeError // the body went over the limit
}

func (c *captured) setTooLarge(e *ResponseTooLargeError) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.tooLarge = e
}

func (c *captured) overLimit() *ResponseTooLargeError {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.tooLarge
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

// capturingDoer is the go-openai HTTPDoer that records status and Retry-After per request
// and bounds every body it hands on to maxBody bytes: go-openai reads a body whole (into
// a completion or an error message), so the bound must sit below it.
type capturingDoer struct {
	client  *http.Client
	maxBody int64
}

func (d capturingDoer) Do(req *http.Request) (*http.Response, error) {
	resp, err := d.client.Do(req)
	if resp != nil && resp.Body != nil {
		c, _ := req.Context().Value(captureKey{}).(*captured)
		if c != nil {
			c.set(resp.StatusCode, resp.Header.Get("Retry-After"))
		}
		resp.Body = &cappedBody{ReadCloser: resp.Body, max: d.maxBody, declared: resp.ContentLength, c: c,
			tee: c != nil && resp.StatusCode/100 == 2}
	}
	return resp, err
}

// cappedBody reads a response body up to max bytes; the byte after the last one allowed
// ends the read with a *ResponseTooLargeError, which the capture keeps, so that a body of
// any size costs at most max bytes of memory. For a 2xx it keeps the start of the body
// in the capture as go-openai reads it (go-openai drops the body of a completion it
// could not decode, or one that carries an error and no choice).
type cappedBody struct {
	io.ReadCloser
	max      int64
	declared int64 // Content-Length, -1 when unknown
	read     int64
	c        *captured
	tee      bool
	err      error // the ResponseTooLargeError, once the limit is passed
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.read > b.max {
		return 0, b.tooLarge()
	}
	if room := b.max + 1 - b.read; int64(len(p)) > room {
		p = p[:room]
	}
	n, err := b.ReadCloser.Read(p)
	if b.tee {
		b.c.addBody(p[:n])
	}
	b.read += int64(n)
	if b.read > b.max {
		return n - 1, b.tooLarge() // the byte over the limit is not handed on
	}
	return n, err
}

// maxDrain bounds how far a body over the limit is read on, a small buffer at a time,
// to learn its size; past it the size is reported as a lower bound.
const maxDrain = 256 << 20

func (b *cappedBody) tooLarge() error {
	if b.err != nil {
		return b.err
	}
	e := &ResponseTooLargeError{Max: b.max, Size: b.declared}
	if b.declared <= b.max {
		// No length was declared: count the rest. The bytes are dropped as they come, so
		// a body of any size costs one small buffer; a body that never ends is cut off at
		// maxDrain (or by the call's timeout).
		n, err := io.CopyN(io.Discard, b.ReadCloser, maxDrain)
		e.Size = b.read + n
		e.AtLeast = !errors.Is(err, io.EOF) // cut off at maxDrain, by the timeout or by the connection
	}
	if b.c != nil {
		b.c.setTooLarge(e)
	}
	b.err = e
	return e
}
