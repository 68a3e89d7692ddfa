package llmtest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
)

// faultHeader marks a reply that a fault server acts out below HTTP instead of sending.
const faultHeader = "X-Llmtest-Fault"

// Faults acted out by a server from NewFaultServer.
const (
	faultDrop = "drop" // close the connection before a status line
	faultCut  = "cut"  // send the status and half the body, then close
)

// Dropped is a reply whose connection is closed before anything is sent, as when a
// proxy or the server dies mid-request. Only a server from NewFaultServer acts it out.
func Dropped() Reply { return Reply{Header: map[string]string{faultHeader: faultDrop}} }

// CutShort is a 200 reply with content whose body stops halfway, the connection then
// closed. Only a server from NewFaultServer acts it out.
func CutShort(content string) Reply {
	r := Text(content)
	r.Header = map[string]string{faultHeader: faultCut}
	return r
}

// NewFaultServer is NewServer that also acts out Dropped and CutShort replies. Every
// reply is logged and taken from the queue in order, as with NewServer.
func NewFaultServer(t testing.TB, replies ...Reply) *Server {
	t.Helper()
	s := &Server{t: t, todo: append([]Reply(nil), replies...)}
	s.srv = httptest.NewServer(http.HandlerFunc(s.handleFaults))
	t.Cleanup(s.srv.Close)
	return s
}

// Prepend queues replies ahead of those already queued, e.g. the failures an endpoint
// sends before the answer a test scripted earlier.
func (s *Server) Prepend(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.todo = append(append([]Reply(nil), replies...), s.todo...)
}

// handleFaults acts out the next reply when it is a fault and hands every other request
// to handle. Concurrent requests may take each other's replies, as with handle.
func (s *Server) handleFaults(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	var reply Reply
	fault := len(s.todo) > 0 && s.todo[0].Header[faultHeader] != ""
	if fault {
		reply, s.todo = s.todo[0], s.todo[1:]
	}
	s.mu.Unlock()
	if !fault {
		s.handle(w, r)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	_ = json.Unmarshal(body, &req.Chat) // a fault is acted out whatever was asked
	s.mu.Lock()
	s.log = append(s.log, req)
	seq := len(s.log)
	s.mu.Unlock()

	hj, ok := w.(http.Hijacker)
	if !ok {
		s.t.Errorf("llmtest: the response writer cannot hijack the connection")
		return
	}
	if reply.Header[faultHeader] == faultCut {
		b := reply.body(seq, req.Chat.Model, "")
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		s.t.Errorf("llmtest: hijack: %v", err)
		return
	}
	_ = conn.Close()
}
