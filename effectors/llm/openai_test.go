package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

func TestCompleteSendsRequestAndReadsResponse(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{
		Content:          "",
		ToolCalls:        []llmtest.ToolCall{{ID: "call_1", Name: "shell", Arguments: `{"command":"ls"}`}},
		PromptTokens:     31,
		CompletionTokens: 9,
		Model:            "test-model-2025",
	})
	m, sleeps := newTestModel(t, srv, nil)
	zero, seed := 0.0, 42
	req := contract.ModelRequest{
		Model: "planner-model",
		Messages: []contract.ModelMessage{
			{Role: RoleSystem, Content: "you run tools"},
			{Role: RoleUser, Content: "list the files"},
			{Role: RoleAssistant, ToolCalls: []contract.ModelToolCall{{ID: "call_0", Name: "shell", Arguments: `{"command":"pwd"}`}}},
			{Role: RoleTool, ToolCallID: "call_0", Content: "/work"},
		},
		Tools:       []contract.ModelTool{{Name: "shell", Description: "run a command", Parameters: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`)}},
		Temperature: &zero,
		MaxTokens:   256,
		Seed:        &seed,
	}
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatalf("Complete: %v", err)
	}
	want := contract.ModelResponse{
		Model:        "test-model-2025",
		ToolCalls:    []contract.ModelToolCall{{ID: "call_1", Name: "shell", Arguments: `{"command":"ls"}`}},
		FinishReason: "tool_calls",
		Usage:        contract.ModelUsage{PromptTokens: 31, CompletionTokens: 9, TotalTokens: 40},
		Attempts:     1,
	}
	if got, _ := json.Marshal(resp); string(got) != mustJSON(t, want) {
		t.Errorf("response\n got %s\nwant %s", got, mustJSON(t, want))
	}
	if len(sleeps.got()) != 0 {
		t.Errorf("slept %v on a first-time success", sleeps.got())
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	got := reqs[0]
	if got.Header.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("Authorization header = %q", got.Header.Get("Authorization"))
	}
	if !strings.HasSuffix(got.Path, "/v1/chat/completions") {
		t.Errorf("path = %q", got.Path)
	}
	c := got.Chat
	if c.Model != "planner-model" || c.MaxTokens != 256 || c.Seed == nil || *c.Seed != 42 || len(c.Tools) != 1 {
		t.Errorf("chat body = %+v", c)
	}
	if c.Temperature == nil || *c.Temperature > 1e-30 {
		t.Errorf("temperature 0 must be sent as (almost) zero, got %v", c.Temperature)
	}
	if len(c.Messages) != 4 || c.Messages[2].ToolCalls[0].Function.Name != "shell" || c.Messages[3].ToolCallID != "call_0" {
		t.Errorf("messages = %+v", c.Messages)
	}
}

// TestCompleteReadsContentParts: a message whose content is an array of parts (as some
// OpenAI-compatible servers send it) is read as the concatenation of its text parts.
func TestCompleteReadsContentParts(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"text parts", `[{"type":"text","text":"{\"a\":"},{"type":"text","text":"1}"}]`, `{"a":1}`},
		{"an image part is skipped", `[{"type":"image_url","image_url":{"url":"https://x.example/i.png"}},{"type":"text","text":"ok"}]`, "ok"},
		{"no parts", `[]`, ""},
		{"a plain string", `"plain"`, "plain"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Reply{Body: `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":` +
				c.content + `},"finish_reason":"stop"}]}`})
			m, _ := newTestModel(t, srv, nil)
			resp, err := m.Complete(context.Background(), userAsks("hi"))
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != c.want {
				t.Errorf("content %q, want %q", resp.Content, c.want)
			}
		})
	}
}

// TestCompleteSaysWhatA2xxBodyHeld: go-openai keeps nothing of a 2xx body it could not
// decode, nor of one that carries an error and no choice; the error says what it held.
func TestCompleteSaysWhatA2xxBodyHeld(t *testing.T) {
	cases := []struct {
		name, body string
		noChoices  bool
		want       string
	}{
		{"an error object and no choices",
			`{"error":{"message":"upstream model is loading","type":"server_error","code":503}}`, true,
			`model "test-model": the response has no choices; the body carries an error instead: upstream model is loading`},
		{"an error string and no choices",
			`{"choices":[],"error":"overloaded"}`, true,
			`the response has no choices; the body carries an error instead: "overloaded"`},
		{"no choices and no error", `{"choices":[]}`, true, `model "test-model": the response has no choices`},
		{"tool-call arguments as an object",
			`{"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":{"path":"a"}}}]},"finish_reason":"tool_calls"}]}`, false,
			`; the body reads: {"choices":[{"message":{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"read_file","arguments":{"path":"a"}}}]},"finish_reason":"tool_calls"}]}`},
		{"the key in the body is scrubbed",
			`{"choices":[{"message":{"role":"assistant","content":7,"note":"` + testKey + `"}}]}`, false,
			`; the body reads: {"choices":[{"message":{"role":"assistant","content":7,"note":"[REDACTED`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Reply{Body: c.body})
			m, _ := newTestModel(t, srv, nil)
			_, err := m.Complete(context.Background(), userAsks("hi"))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to contain %s", err, c.want)
			}
			if errors.Is(err, ErrNoChoices) != c.noChoices {
				t.Errorf("errors.Is(err, ErrNoChoices) = %v, want %v", !c.noChoices, c.noChoices)
			}
			if strings.Contains(err.Error(), testKey) {
				t.Error("the key is in the error")
			}
		})
	}
}

func TestCompleteUsesDefaultModelAndCompletionTokensForReasoningModels(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"))
	m, _ := newTestModel(t, srv, nil)
	if _, err := m.Complete(context.Background(), userAsks("x")); err != nil {
		t.Fatal(err)
	}
	req := userAsks("y")
	req.Model, req.MaxTokens = "o3-mini", 100
	if _, err := m.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if reqs[0].Chat.Model != "test-model" || reqs[0].Chat.Temperature != nil {
		t.Errorf("default model / unset temperature: %+v", reqs[0].Chat)
	}
	if reqs[1].Chat.MaxCompletionTokens != 100 || reqs[1].Chat.MaxTokens != 0 {
		t.Errorf("o3 model: max_tokens=%d max_completion_tokens=%d", reqs[1].Chat.MaxTokens, reqs[1].Chat.MaxCompletionTokens)
	}
}

func TestCompleteRetries(t *testing.T) {
	stall := llmtest.Reply{Stall: 5 * time.Second, Content: "too late"}
	cases := []struct {
		name       string
		replies    []llmtest.Reply
		tweak      func(*OpenAIOptions)
		wantSleeps []time.Duration
		wantErr    string // substrings, "|"-separated; "" means success
		wantTries  int
	}{
		{
			name:       "429 with Retry-After seconds then success",
			replies:    []llmtest.Reply{llmtest.RateLimited("7"), llmtest.Text("ok")},
			wantSleeps: []time.Duration{7 * time.Second},
			wantTries:  2,
		},
		{
			name:       "429 with Retry-After HTTP date then success",
			replies:    []llmtest.Reply{llmtest.RateLimited(testNow.Add(3 * time.Second).Format(http.TimeFormat)), llmtest.Text("ok")},
			wantSleeps: []time.Duration{3 * time.Second},
			wantTries:  2,
		},
		{
			name:       "429 with Retry-After date in the past retries at once",
			replies:    []llmtest.Reply{llmtest.RateLimited(testNow.Add(-time.Hour).Format(http.TimeFormat)), llmtest.Text("ok")},
			wantSleeps: []time.Duration{0},
			wantTries:  2,
		},
		{
			name:       "429 without Retry-After backs off",
			replies:    []llmtest.Reply{llmtest.Fail(429, "slow down"), llmtest.Text("ok")},
			wantSleeps: []time.Duration{750 * time.Millisecond},
			wantTries:  2,
		},
		{
			name:       "500 then success",
			replies:    []llmtest.Reply{llmtest.Fail(500, "boom"), llmtest.Text("ok")},
			wantSleeps: []time.Duration{750 * time.Millisecond},
			wantTries:  2,
		},
		{
			name:       "502 with an HTML body then success",
			replies:    []llmtest.Reply{{Status: 502, Body: "<html>bad gateway</html>"}, llmtest.Text("ok")},
			wantSleeps: []time.Duration{750 * time.Millisecond},
			wantTries:  2,
		},
		{
			name:       "backoff doubles and is capped",
			replies:    []llmtest.Reply{llmtest.Fail(503, "a"), llmtest.Fail(503, "b"), llmtest.Fail(503, "c"), llmtest.Fail(503, "d"), llmtest.Text("ok")},
			tweak:      func(o *OpenAIOptions) { o.MaxAttempts = 5; o.MaxDelay = 3 * time.Second },
			wantSleeps: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond, 2250 * time.Millisecond, 2250 * time.Millisecond},
			wantTries:  5,
		},
		{
			name:       "timeout then success",
			replies:    []llmtest.Reply{stall, llmtest.Text("ok")},
			tweak:      func(o *OpenAIOptions) { o.Timeout = 150 * time.Millisecond },
			wantSleeps: []time.Duration{750 * time.Millisecond},
			wantTries:  2,
		},
		{
			name:       "exhausted after max attempts",
			replies:    []llmtest.Reply{llmtest.Fail(503, "overloaded"), llmtest.Fail(503, "overloaded"), llmtest.Fail(503, "still overloaded")},
			wantSleeps: []time.Duration{750 * time.Millisecond, 1500 * time.Millisecond},
			wantErr:    `model "test-model": gave up after 3 attempts; last attempt: status 503 Service Unavailable: still overloaded`,
			wantTries:  3,
		},
		{
			name:       "exhausted by timeouts",
			replies:    []llmtest.Reply{stall, stall},
			tweak:      func(o *OpenAIOptions) { o.Timeout = 100 * time.Millisecond; o.MaxAttempts = 2 },
			wantSleeps: []time.Duration{750 * time.Millisecond},
			wantErr:    "gave up after 2 attempts|per-call timeout of 100ms",
			wantTries:  2,
		},
		{
			name:      "400 is not retried",
			replies:   []llmtest.Reply{llmtest.Fail(400, "bad tool schema")},
			wantErr:   "attempt 1: status 400 Bad Request: bad tool schema",
			wantTries: 1,
		},
		{
			// mock-llm's own 404: "error" is a string, which go-openai decodes into an
			// empty APIError inside its RequestError; the body must not be lost.
			name:      "an error body whose error is a string keeps the body",
			replies:   []llmtest.Reply{{Status: 404, Body: `{"error":"Not Found","message":"Cannot POST /v1/chat/completions","status":404}`}},
			wantErr:   `attempt 1: status 404 Not Found: {"error":"Not Found","message":"Cannot POST /v1/chat/completions","status":404}`,
			wantTries: 1,
		},
		{
			name:      "Retry-After beyond the limit ends the call",
			replies:   []llmtest.Reply{llmtest.RateLimited("3600")},
			wantErr:   "status 429|retry after 1h0m0s, beyond the 2m0s limit",
			wantTries: 1,
		},
		{
			name:      "200 with a body that is not a completion",
			replies:   []llmtest.Reply{{Body: "not json"}},
			wantErr:   "attempt 1: invalid character",
			wantTries: 1,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.replies...)
			m, sleeps := newTestModel(t, srv, tc.tweak)
			start := time.Now()
			resp, err := m.Complete(context.Background(), userAsks("hi"))
			if elapsed := time.Since(start); elapsed > 3*time.Second {
				t.Errorf("took %s: something really slept", elapsed)
			}
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if resp.Content != "ok" {
					t.Errorf("content = %q", resp.Content)
				}
			} else {
				if err == nil {
					t.Fatalf("Complete succeeded, want error with %q", tc.wantErr)
				}
				for _, part := range strings.Split(tc.wantErr, "|") {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q lacks %q", err, part)
					}
				}
			}
			if resp.Attempts != tc.wantTries || len(srv.Requests()) != tc.wantTries {
				t.Errorf("attempts = %d, server saw %d, want %d", resp.Attempts, len(srv.Requests()), tc.wantTries)
			}
			if got := sleeps.got(); !slices.Equal(got, tc.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", got, tc.wantSleeps)
			}
		})
	}
}

func TestExhaustedErrorExposesStatusAndAttempts(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fail(500, "x"), llmtest.Fail(502, "y"))
	m, _ := newTestModel(t, srv, func(o *OpenAIOptions) { o.MaxAttempts = 2 })
	_, err := m.Complete(context.Background(), userAsks("hi"))
	var ex *ExhaustedError
	if !errors.As(err, &ex) {
		t.Fatalf("error %v is not an *ExhaustedError", err)
	}
	if ex.Attempts != 2 || ex.StatusCode() != 502 {
		t.Errorf("attempts %d status %d", ex.Attempts, ex.StatusCode())
	}
	var se *StatusError
	if !errors.As(err, &se) || se.Message != "y" {
		t.Errorf("StatusError not reachable: %v", se)
	}
}

func TestCompleteStopsWhenContextCancelledWhileWaiting(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Fail(503, "busy"))
	ctx, cancel := context.WithCancel(context.Background())
	m, _ := newTestModel(t, srv, func(o *OpenAIOptions) {
		o.Sleep = func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	})
	resp, err := m.Complete(ctx, userAsks("hi"))
	if !errors.Is(err, context.Canceled) || resp.Attempts != 1 {
		t.Fatalf("err = %v, attempts = %d; want context.Canceled after 1 attempt", err, resp.Attempts)
	}
}

func TestRealSleepHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := sleepTimer(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Fatalf("sleepTimer on a cancelled context = %v", err)
	}
	if time.Since(start) > time.Second {
		t.Fatal("sleepTimer waited despite the cancelled context")
	}
}

func TestAPIKeyNeverInErrors(t *testing.T) {
	cases := []struct {
		name    string
		replies []llmtest.Reply
	}{
		{"401 JSON error echoing the header", []llmtest.Reply{{Status: 401, ErrorMessage: "invalid key", EchoAuth: true}}},
		{"403 plain-text body echoing the header", []llmtest.Reply{{Status: 403, Body: "forbidden", EchoAuth: true}}},
		{"retries exhausted, each echoing the header", []llmtest.Reply{
			{Status: 503, ErrorMessage: "busy", EchoAuth: true},
			{Status: 500, Body: "<html>oops", EchoAuth: true},
			{Status: 429, ErrorMessage: "slow", EchoAuth: true, Header: map[string]string{"Retry-After": "1"}},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.replies...)
			m, _ := newTestModel(t, srv, nil)
			resp, err := m.Complete(context.Background(), userAsks("hi"))
			if err == nil {
				t.Fatal("want an error")
			}
			if !strings.Contains(err.Error(), "Bearer "+redacted) {
				t.Errorf("the server's echo should survive, redacted: %v", err)
			}
			assertNoKey(t, err, resp)
			for e := err; e != nil; e = errors.Unwrap(e) {
				assertNoKey(t, e.Error())
			}
		})
	}
	t.Run("key inside the base URL", func(t *testing.T) {
		_, err := NewOpenAIModel(OpenAIOptions{BaseURL: "ftp://host/?key=" + testKey, APIKey: testKey})
		if err == nil {
			t.Fatal("want an error for an ftp URL")
		}
		assertNoKey(t, err)
	})
	t.Run("transport failure", func(t *testing.T) {
		m, err := NewOpenAIModel(OpenAIOptions{BaseURL: "http://127.0.0.1:1/" + testKey, APIKey: testKey, Model: "m",
			MaxAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Complete(context.Background(), userAsks("hi"))
		if err == nil {
			t.Fatal("want a connection error")
		}
		assertNoKey(t, err, m.String(), fmt.Sprintf("%v %+v %#v", m, m, m))
	})
}

// assertNoKey fails if the test key shows up in any rendering of the values.
func assertNoKey(t *testing.T, values ...any) {
	t.Helper()
	for _, v := range values {
		b, _ := json.Marshal(v)
		for _, s := range []string{fmt.Sprint(v), fmt.Sprintf("%+v", v), fmt.Sprintf("%#v", v), string(b)} {
			if strings.Contains(s, testKey) {
				t.Errorf("API key leaked: %s", s)
			}
		}
	}
}

func TestBackoffAndRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, 500 * time.Millisecond}, {1, 0.999, 999500 * time.Microsecond}, {2, 0, time.Second},
		{3, 0.5, 3 * time.Second}, {10, 0, 4 * time.Second}, {60, 0, 4 * time.Second}, {1, 7, 500 * time.Millisecond},
	} {
		if got := backoff(tc.n, time.Second, 8*time.Second, fixedJitter(tc.jitter)); got != tc.want {
			t.Errorf("backoff(%d, jitter %v) = %s, want %s", tc.n, tc.jitter, got, tc.want)
		}
	}
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"", 0, false}, {"0", 0, true}, {" 12 ", 12 * time.Second, true}, {"-3", 0, false}, {"soon", 0, false},
		{testNow.Add(90 * time.Second).Format(http.TimeFormat), 90 * time.Second, true},
		{"99999999999999999999", 0, false}, {"9223372036", time.Duration(1<<62/int64(time.Second)) * time.Second, true},
	} {
		got, ok := parseRetryAfter(tc.in, testNow)
		if got != tc.want || ok != tc.ok {
			t.Errorf("parseRetryAfter(%q) = %s, %v; want %s, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestToWireRejectsBadRequests(t *testing.T) {
	m, err := NewOpenAIModel(OpenAIOptions{BaseURL: "http://localhost/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		req  contract.ModelRequest
		want string
	}{
		{userAsks("x"), "names no model"},
		{contract.ModelRequest{Model: "m", Messages: []contract.ModelMessage{{Content: "x"}}}, "message 0 has no role"},
		{contract.ModelRequest{Model: "m", Tools: []contract.ModelTool{{Name: "t", Parameters: json.RawMessage(`{`)}}}, `tool "t": parameters are not valid JSON`},
	} {
		_, err := m.Complete(context.Background(), tc.req)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Complete(%+v) = %v, want %q", tc.req, err, tc.want)
		}
	}
	if _, err := NewOpenAIModel(OpenAIOptions{MaxAttempts: -1}); err == nil {
		t.Error("negative attempts accepted")
	}
	if f := float32(math.SmallestNonzeroFloat32); f == 0 {
		t.Error("smallest float32 is zero")
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestChatTypesRoundTripThroughJSON(t *testing.T) {
	temp, seed := 0.0, 7
	req := contract.ModelRequest{
		Model:       "m",
		Messages:    []contract.ModelMessage{{Role: RoleAssistant, ToolCalls: []contract.ModelToolCall{{ID: "c1", Name: "shell", Arguments: `{"command":"ls"}`}}}, {Role: RoleTool, ToolCallID: "c1", Content: "a.txt"}},
		Tools:       []contract.ModelTool{{Name: "shell", Parameters: json.RawMessage(`{"type":"object"}`)}},
		Temperature: &temp, MaxTokens: 10, Seed: &seed,
	}
	resp := contract.ModelResponse{Model: "m", Content: "x", FinishReason: "stop", Usage: contract.ModelUsage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}, Attempts: 2}
	for _, v := range []any{req, resp} {
		b := mustJSON(t, v)
		back := reflect.New(reflect.TypeOf(v))
		if err := json.Unmarshal([]byte(b), back.Interface()); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(back.Elem().Interface(), v) {
			t.Errorf("round trip of %s changed it: %+v", b, back.Elem().Interface())
		}
	}
}

// TestCompleteKeepsReasoningContent: an endpoint's reasoning_content (DeepSeek, vLLM,
// Qwen) is read into the response and encoded with it, so a journalled exchange keeps
// it; a response without one encodes as before.
func TestCompleteKeepsReasoningContent(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Reply{Content: `{"ok":true}`, ReasoningContent: "The user wants a flag; true fits."},
		llmtest.Reply{Content: `{"ok":true}`})
	m, _ := newTestModel(t, srv, nil)
	req := contract.ModelRequest{Messages: []contract.ModelMessage{{Role: RoleUser, Content: "answer"}}}
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ReasoningContent != "The user wants a flag; true fits." {
		t.Errorf("reasoning %q", resp.ReasoningContent)
	}
	if got, _ := json.Marshal(resp); !strings.Contains(string(got), `"reasoning_content":"The user wants a flag; true fits."`) {
		t.Errorf("encoded response %s lacks the reasoning", got)
	}
	plain, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := json.Marshal(plain); strings.Contains(string(got), "reasoning") {
		t.Errorf("a response without reasoning encodes %s", got)
	}
}
