package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
	"github.com/agentspine/spine/internal/secrets"
)

// heardRetries is a retry hook that remembers what it heard.
type heardRetries struct {
	mu sync.Mutex
	rs []Retry
}

func (h *heardRetries) hook(r Retry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.rs = append(h.rs, r)
}

// lines renders each retry as the display would word it.
func (h *heardRetries) lines() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	for _, r := range h.rs {
		out = append(out, fmt.Sprintf("%s %s %d/%d in %s: %s [%s]", r.Role, r.Model, r.Next(), r.Max, r.Wait(), r.Cause(), r.Failed.Short()))
	}
	return out
}

func logJSON(t *testing.T, as []contract.ModelAttempt) string {
	t.Helper()
	b, err := json.Marshal(as)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAttemptLogThroughFaults: a 429 with Retry-After, a 500, a timeout, then the answer.
// Every attempt is in the response's log with its status or kind, the Retry-After it got
// and the wait chosen after it; the hook heard each retry before its wait.
func TestAttemptLogThroughFaults(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.RateLimited("2"), llmtest.Fail(500, "boom"),
		llmtest.Reply{Stall: 5 * time.Second, Content: "too late"}, llmtest.Text("ok"))
	m, sleeps := newTestModel(t, srv, func(o *OpenAIOptions) { o.MaxAttempts = 4; o.Timeout = 150 * time.Millisecond })
	heard := &heardRetries{}
	parent := heard.hook
	ctx := WithRetryHook(context.Background(), func(r Retry) { r.Role = R2; parent(r) })
	resp, err := m.Complete(ctx, userAsks("hi"))
	if err != nil || resp.Content != "ok" || resp.Attempts != 4 {
		t.Fatalf("Complete = %q after %d attempts, %v", resp.Content, resp.Attempts, err)
	}
	want := `[{"n":1,"status":429,"retry_after_ms":2000,"wait_ms":2000,"error":"status 429 Too Many Requests: rate limit reached"},` +
		`{"n":2,"status":500,"wait_ms":1500,"error":"status 500 Internal Server Error: boom"},` +
		`{"n":3,"kind":"timeout","wait_ms":3000,"error":"no complete answer within the per-call timeout of 150ms"},` +
		`{"n":4,"status":200}]`
	if got := logJSON(t, resp.AttemptLog); got != want {
		t.Errorf("attempt log\n got %s\nwant %s", got, want)
	}
	if got, want := sleeps.got(), []time.Duration{2 * time.Second, 1500 * time.Millisecond, 3 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("sleeps = %v, want %v", got, want)
	}
	wantHeard := []string{
		"R2 test-model 2/4 in 2s: HTTP 429 (Retry-After 2s) [429]",
		"R2 test-model 3/4 in 1.5s: HTTP 500 [500]",
		"R2 test-model 4/4 in 3s: timeout [timeout]",
	}
	if got := heard.lines(); !slices.Equal(got, wantHeard) {
		t.Errorf("hook heard\n %q\nwant\n %q", got, wantHeard)
	}
	// The log survives the trip through JSON, as a replay reads it back.
	var back contract.ModelResponse
	b, _ := json.Marshal(resp)
	if err := json.Unmarshal(b, &back); err != nil || logJSON(t, back.AttemptLog) != want {
		t.Errorf("round trip: %v %s", err, logJSON(t, back.AttemptLog))
	}
}

// TestAttemptLogKinds: one case per way an attempt can fail, each with the exact log,
// the waits and the retries the hook heard.
func TestAttemptLogKinds(t *testing.T) {
	cases := []struct {
		name    string
		replies []llmtest.Reply
		tweak   func(*OpenAIOptions)
		log     string
		heard   []string
		wantErr bool
	}{
		{
			name:    "a first attempt that succeeds leaves no log",
			replies: []llmtest.Reply{llmtest.Text("ok")},
			log:     `null`,
		},
		{
			name:    "502 with an HTML body",
			replies: []llmtest.Reply{{Status: 502, Body: "<html>bad gateway</html>"}, llmtest.Text("ok")},
			log: `[{"n":1,"status":502,"kind":"non_json_body","wait_ms":750,"error":"status 502 Bad Gateway: \u003chtml\u003ebad gateway\u003c/html\u003e"},` +
				`{"n":2,"status":200}]`,
			heard: []string{" test-model 2/3 in 750ms: HTTP 502 with a non-JSON body [502]"},
		},
		{
			name:    "connection dropped before the status line",
			replies: []llmtest.Reply{llmtest.Dropped(), llmtest.Text("ok")},
			log:     `[{"n":1,"kind":"connection","wait_ms":750,"error":"Post \"URL/chat/completions\": EOF"},{"n":2,"status":200}]`,
			heard:   []string{" test-model 2/3 in 750ms: connection refused or dropped [connection]"},
		},
		{
			name:    "body cut short is retried",
			replies: []llmtest.Reply{llmtest.CutShort("half"), llmtest.Text("ok")},
			log:     `[{"n":1,"status":200,"kind":"connection","wait_ms":750,"error":"unexpected EOF"},{"n":2,"status":200}]`,
			heard:   []string{" test-model 2/3 in 750ms: HTTP 200 answer cut short [connection]"},
		},
		{
			name:    "200 whose body is not JSON is not retried",
			replies: []llmtest.Reply{{Body: "not json"}},
			log:     `[{"n":1,"status":200,"kind":"non_json_body","error":"invalid character 'o' in literal null (expecting 'u'); the body reads: not json"}]`,
			wantErr: true,
		},
		{
			name:    "200 without choices",
			replies: []llmtest.Reply{{Body: `{"id":"x","choices":[]}`}},
			log:     `[{"n":1,"status":200,"error":"the response has no choices"}]`,
			wantErr: true,
		},
		{
			name:    "400 is not retried",
			replies: []llmtest.Reply{llmtest.Fail(400, "bad tool schema")},
			log:     `[{"n":1,"status":400,"error":"status 400 Bad Request: bad tool schema"}]`,
			wantErr: true,
		},
		{
			name:    "Retry-After beyond the limit: recorded, no wait",
			replies: []llmtest.Reply{llmtest.RateLimited("3600")},
			log:     `[{"n":1,"status":429,"retry_after_ms":3600000,"error":"status 429 Too Many Requests: rate limit reached"}]`,
			wantErr: true,
		},
		{
			name:    "exhausted: the last attempt has no wait",
			replies: []llmtest.Reply{llmtest.Fail(503, "a"), llmtest.RateLimited("0")},
			tweak:   func(o *OpenAIOptions) { o.MaxAttempts = 2 },
			log: `[{"n":1,"status":503,"wait_ms":750,"error":"status 503 Service Unavailable: a"},` +
				`{"n":2,"status":429,"retry_after_ms":0,"error":"status 429 Too Many Requests: rate limit reached"}]`,
			heard:   []string{" test-model 2/2 in 750ms: HTTP 503 [503]"},
			wantErr: true,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewFaultServer(t, tc.replies...)
			m, _ := newTestModel(t, srv, tc.tweak)
			heard := &heardRetries{}
			resp, err := m.Complete(WithRetryHook(context.Background(), heard.hook), userAsks("hi"))
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want an error: %v", err, tc.wantErr)
			}
			got := strings.ReplaceAll(logJSON(t, resp.AttemptLog), srv.URL(), "URL")
			if got != tc.log {
				t.Errorf("attempt log\n got %s\nwant %s", got, tc.log)
			}
			if got := heard.lines(); !slices.Equal(got, tc.heard) {
				t.Errorf("hook heard %q, want %q", got, tc.heard)
			}
			if srv.Pending() != 0 {
				t.Errorf("%d replies unused", srv.Pending())
			}
		})
	}
}

// TestAttemptLogWhenCancelled: a wait cut short by the caller keeps the wait chosen; an
// attempt cut short by the caller is marked canceled.
func TestAttemptLogWhenCancelled(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fail(503, "busy"))
	m, _ := newTestModel(t, srv, func(o *OpenAIOptions) {
		o.Sleep = func(context.Context, time.Duration) error { return context.Canceled }
	})
	resp, err := m.Complete(context.Background(), userAsks("hi"))
	want := `[{"n":1,"status":503,"wait_ms":750,"error":"status 503 Service Unavailable: busy"}]`
	if !errors.Is(err, context.Canceled) || logJSON(t, resp.AttemptLog) != want {
		t.Errorf("err %v, log %s; want %s", err, logJSON(t, resp.AttemptLog), want)
	}

	srv = llmtest.NewServer(t, llmtest.Reply{Stall: 5 * time.Second})
	m, _ = newTestModel(t, srv, nil)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	resp, err = m.Complete(ctx, userAsks("hi"))
	if !errors.Is(err, context.Canceled) || len(resp.AttemptLog) != 1 || resp.AttemptLog[0].Kind != KindCanceled || resp.AttemptLog[0].WaitMS != nil {
		t.Errorf("err %v, log %s", err, logJSON(t, resp.AttemptLog))
	}
}

// TestScrubModelScrubsAttemptLog: a secret an endpoint echoes in an error body is
// scrubbed from the attempt log as from the error.
func TestScrubModelScrubsAttemptLog(t *testing.T) {
	const secret = "ghp_0123456789abcdefghij"
	srv := llmtest.NewServer(t, llmtest.Fail(500, "token "+secret+" refused"), llmtest.Text("ok"))
	m, _ := newTestModel(t, srv, nil)
	resp, err := ScrubModel(m, secrets.New(secret)).Complete(context.Background(), userAsks("hi"))
	if err != nil {
		t.Fatal(err)
	}
	got := logJSON(t, resp.AttemptLog)
	if strings.Contains(got, secret) || !strings.Contains(got, "token [REDACTED] refused") {
		t.Errorf("attempt log %s", got)
	}
}

func TestScrubAttemptsCopiesOnlyOnChange(t *testing.T) {
	as := []contract.ModelAttempt{{N: 1, Error: "clean"}, {N: 2}}
	if got := scrubAttempts(as, strings.ToUpper); &got[0] == &as[0] || got[0].Error != "CLEAN" || as[0].Error != "clean" {
		t.Errorf("scrub changed the caller's log or did not copy: %+v %+v", got, as)
	}
	if got := scrubAttempts(as, func(s string) string { return s }); &got[0] != &as[0] {
		t.Error("an unchanged log was copied")
	}
}

func TestRetryHookFromEmptyContext(t *testing.T) {
	if RetryHookFrom(context.Background()) != nil {
		t.Error("a context without a hook has one")
	}
}
