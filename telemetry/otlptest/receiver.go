// Package otlptest is an in-process OTLP/HTTP trace receiver for tests: it decodes each
// POST /v1/traces as the protobuf ExportTraceServiceRequest, gzip or not, and keeps it,
// so a test can check the spans an exporter sent. It is for tests only and serves no
// other signal.
package otlptest

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// Request is one export the receiver accepted.
type Request struct {
	Header  http.Header
	Gzip    bool
	Payload *coltracepb.ExportTraceServiceRequest
}

// Receiver is a running OTLP/HTTP receiver.
type Receiver struct {
	srv *httptest.Server

	mu     sync.Mutex
	reqs   []Request
	status int    // answer with this status instead of accepting, when not zero
	body   string // and this body
}

// New starts a receiver; Close stops it.
func New() *Receiver {
	r := &Receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	return r
}

// URL is the receiver's base URL (no path).
func (r *Receiver) URL() string { return r.srv.URL }

// Close stops the receiver.
func (r *Receiver) Close() { r.srv.Close() }

// Fail makes every later request get status and body instead of being accepted.
func (r *Receiver) Fail(status int, body string) {
	r.mu.Lock()
	r.status, r.body = status, body
	r.mu.Unlock()
}

// Requests returns the accepted requests in arrival order.
func (r *Receiver) Requests() []Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Request(nil), r.reqs...)
}

// Spans returns every span of every accepted request, in arrival order.
func (r *Receiver) Spans() []*tracepb.Span {
	var out []*tracepb.Span
	for _, q := range r.Requests() {
		for _, rs := range q.Payload.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				out = append(out, ss.Spans...)
			}
		}
	}
	return out
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" {
		http.Error(w, fmt.Sprintf("want POST /v1/traces, got %s %s", req.Method, req.URL.Path), http.StatusNotFound)
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "want Content-Type application/x-protobuf, got "+ct, http.StatusUnsupportedMediaType)
		return
	}
	r.mu.Lock()
	status, body := r.status, r.body
	r.mu.Unlock()
	if status != 0 {
		http.Error(w, body, status)
		return
	}
	var in io.Reader = req.Body
	gz := req.Header.Get("Content-Encoding") == "gzip"
	if gz {
		zr, err := gzip.NewReader(req.Body)
		if err != nil {
			http.Error(w, "gzip: "+err.Error(), http.StatusBadRequest)
			return
		}
		defer zr.Close()
		in = zr
	}
	raw, err := io.ReadAll(io.LimitReader(in, 64<<20))
	if err != nil {
		http.Error(w, "reading body: "+err.Error(), http.StatusBadRequest)
		return
	}
	var p coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(raw, &p); err != nil {
		http.Error(w, "decoding ExportTraceServiceRequest: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	r.reqs = append(r.reqs, Request{Header: req.Header.Clone(), Gzip: gz, Payload: &p})
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}
