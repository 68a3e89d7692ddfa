package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/effectors/mcp/internal/testserver"
)

// A Streamable HTTP server (the Go SDK test server, in process on 127.0.0.1) is reached
// with its headers from the environment, its tools are offered and called; the client
// may connect to the URL's host:port only, so a redirect elsewhere makes the server
// unavailable and the other host is never contacted.
func TestStreamableHTTPServer(t *testing.T) {
	var auth atomic.Value
	auth.Store("")
	handler := sdk.NewStreamableHTTPHandler(func(r *http.Request) *sdk.Server {
		auth.Store(r.Header.Get("Authorization"))
		return testserver.New()
	}, nil)
	var elsewhereHit atomic.Int32
	elsewhere := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhereHit.Add(1)
		handler.ServeHTTP(w, r)
	}))
	defer elsewhere.Close()
	mux := http.NewServeMux()
	mux.Handle("/mcp", handler)
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, elsewhere.URL+"/mcp", http.StatusTemporaryRedirect)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()

	env := func(name string) (string, bool) {
		if name == "WEB_TOKEN" {
			return "Bearer sk-test-secret-value-123", true
		}
		return "", false
	}
	ctx := context.Background()
	tb, err := Open(ctx, nil, Options{Env: env, Servers: []Server{
		{Name: "web", URL: srv.URL + "/mcp", Headers: map[string]string{"Authorization": "WEB_TOKEN"}, Timeout: 5 * time.Second},
		{Name: "moved", URL: srv.URL + "/moved", Timeout: 5 * time.Second},
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	st := tb.Status()
	if st[0].Unavailable != "" || st[0].Transport != "http" {
		t.Fatalf("web: %+v", st[0])
	}
	if got := auth.Load().(string); got != "Bearer sk-test-secret-value-123" {
		t.Errorf("Authorization %q", got)
	}
	r, err := tb.Call(ctx, "mcp__web__echo", []byte(`{"path":"over/http"}`))
	if err != nil || r.Output != "echo over/http" || r.Target != "over/http" {
		t.Errorf("echo over HTTP: %+v, %v", r, err)
	}
	u, _ := url.Parse(srv.URL)
	if !strings.Contains(st[1].Unavailable, "may reach "+u.Host+" only") {
		t.Errorf("moved: %+v, want a refusal naming %s", st[1], u.Host)
	}
	if n := elsewhereHit.Load(); n != 0 {
		t.Errorf("the redirect's target was contacted %d times", n)
	}
	for _, tl := range tb.Tools() {
		if tl.Server == "moved" {
			t.Errorf("an unavailable server offers %s", tl.Name)
		}
	}
}
