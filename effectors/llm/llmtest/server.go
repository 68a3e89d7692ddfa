package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Request is one request the server received, with its chat body decoded.
type Request struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	Chat   ChatBody
}

// ChatBody is the part of a chat-completions request that tests look at.
type ChatBody struct {
	Model               string            `json:"model"`
	Messages            []ChatMessage     `json:"messages"`
	Tools               []json.RawMessage `json:"tools"`
	Temperature         *float64          `json:"temperature"`
	MaxTokens           int               `json:"max_tokens"`
	MaxCompletionTokens int               `json:"max_completion_tokens"`
	Seed                *int              `json:"seed"`
}

// ChatMessage is one message of a received request.
type ChatMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCallID string         `json:"tool_call_id"`
	ToolCalls  []wireToolCall `json:"tool_calls"`
}

// Server is a scripted OpenAI-compatible endpoint. Each request to .../chat/completions
// takes the next reply from the queue; a request with an empty queue fails the test.
type Server struct {
	t    testing.TB
	srv  *httptest.Server
	mu   sync.Mutex
	todo []Reply
	log  []Request
}

// NewServer starts a server with the given replies queued; it is closed when the test ends.
func NewServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, todo: append([]Reply(nil), replies...)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	t.Cleanup(s.srv.Close)
	return s
}

// URL is the base URL to configure a client with (it ends in /v1).
func (s *Server) URL() string { return s.srv.URL + "/v1" }

// Push queues more replies.
func (s *Server) Push(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.todo = append(s.todo, replies...)
}

// Pending is the number of replies not yet used.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.todo)
}

// Requests returns a copy of the log of received requests, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err := json.Unmarshal(body, &req.Chat); err != nil {
		s.t.Errorf("llmtest: request body is not a chat request: %v", err)
	}

	s.mu.Lock()
	s.log = append(s.log, req)
	seq := len(s.log)
	var reply Reply
	ok := len(s.todo) > 0
	if ok {
		reply, s.todo = s.todo[0], s.todo[1:]
	}
	s.mu.Unlock()

	switch {
	case r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions"):
		s.t.Errorf("llmtest: unexpected %s %s", r.Method, r.URL.Path)
		reply = Fail(http.StatusNotFound, "llmtest serves POST .../chat/completions only")
	case !ok:
		s.t.Errorf("llmtest: request %d has no scripted reply", seq)
		reply = Fail(http.StatusInternalServerError, "llmtest: no scripted reply left")
	}

	if reply.Begin != nil {
		reply.Begin()
	}
	if reply.Stall > 0 {
		timer := time.NewTimer(reply.Stall)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-r.Context().Done():
			return
		}
	}
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(reply.status())
	_, _ = w.Write(reply.body(seq, req.Chat.Model, r.Header.Get("Authorization")))
}
