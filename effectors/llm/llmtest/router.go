package llmtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
)

// Router is one endpoint that plays several models: each request is answered from the
// queue of the model it names, so one client configured with a model per role can have
// every role scripted on its own. Faults (Dropped, CutShort, Stall) are acted out on the
// router's own connection: no proxy stands in between to turn a dropped connection into
// a 502 of its own.
type Router struct {
	t      testing.TB
	srv    *httptest.Server
	models map[string]*Server
}

// NewRouter starts a router with one fault server per model, each queued with its
// replies; it is closed when the test ends. A request for a model not in scripts fails
// the test and is answered 404.
func NewRouter(t testing.TB, scripts map[string][]Reply) *Router {
	t.Helper()
	r := &Router{t: t, models: map[string]*Server{}}
	for model, replies := range scripts {
		r.models[model] = NewFaultServer(t, replies...)
	}
	r.srv = httptest.NewServer(http.HandlerFunc(r.route))
	t.Cleanup(r.srv.Close)
	return r
}

// URL is the base URL to configure a client with (it ends in /v1).
func (r *Router) URL() string { return r.srv.URL + "/v1" }

// Model is the scripted server of model, nil when the router has none: its Requests and
// Pending say what that model was asked and what is left of its script.
func (r *Router) Model(model string) *Server { return r.models[model] }

// Unused lists "model: n" for every model with scripted replies left, sorted by model.
func (r *Router) Unused() []string {
	var out []string
	for model, s := range r.models {
		if n := s.Pending(); n > 0 {
			out = append(out, model+": "+itoa(n))
		}
	}
	sort.Strings(out)
	return out
}

func (r *Router) route(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	var chat struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &chat) // a body that is no chat request has no model: 404 below
	s, ok := r.models[chat.Model]
	if !ok {
		r.t.Errorf("llmtest: router: no script for model %q (%s %s)", chat.Model, req.Method, req.URL.Path)
		http.Error(w, "llmtest: no script for model "+chat.Model, http.StatusNotFound)
		return
	}
	req.Body = io.NopCloser(bytes.NewReader(body))
	s.handleFaults(w, req)
}
