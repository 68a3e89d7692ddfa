package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// recordingTB captures Errorf calls instead of failing the real test.
type recordingTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func post(t *testing.T, ctx context.Context, url, body string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url+"/chat/completions", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer k")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestServerScriptAndLog(t *testing.T) {
	s := NewServer(t, Text("first"))
	s.Push(RateLimited("3"), Reply{Status: 401, ErrorMessage: "bad key", EchoAuth: true},
		Reply{ToolCalls: []ToolCall{{ID: "c", Name: "shell", Arguments: "{}"}}, PromptTokens: 5, CompletionTokens: 2})
	if s.Pending() != 4 {
		t.Fatalf("pending = %d", s.Pending())
	}
	ctx := context.Background()
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0.5,"seed":3}`

	resp, got := post(t, ctx, s.URL(), body)
	var c wireResponse
	if err := json.Unmarshal([]byte(got), &c); err != nil || resp.StatusCode != 200 || c.Model != "m" || c.Choices[0].Message.Content != "first" || c.Choices[0].FinishReason != "stop" {
		t.Errorf("reply 1 = %d %s", resp.StatusCode, got)
	}
	resp, got = post(t, ctx, s.URL(), body)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "3" || !strings.Contains(got, "rate limit reached") {
		t.Errorf("reply 2 = %d %v %s", resp.StatusCode, resp.Header, got)
	}
	resp, got = post(t, ctx, s.URL(), body)
	if resp.StatusCode != 401 || !strings.Contains(got, "bad key (Authorization: Bearer k)") {
		t.Errorf("reply 3 = %d %s", resp.StatusCode, got)
	}
	_, got = post(t, ctx, s.URL(), body)
	if err := json.Unmarshal([]byte(got), &c); err != nil || c.Choices[0].FinishReason != "tool_calls" || c.Usage.TotalTokens != 7 || c.Choices[0].Message.ToolCalls[0].Function.Name != "shell" {
		t.Errorf("reply 4 = %s", got)
	}

	log := s.Requests()
	if len(log) != 4 || log[0].Chat.Model != "m" || *log[0].Chat.Temperature != 0.5 || *log[0].Chat.Seed != 3 ||
		log[0].Chat.Messages[0].Content != "hi" || log[0].Header.Get("Authorization") != "Bearer k" {
		t.Errorf("log = %+v", log)
	}
}

func TestServerReportsMissingReplyAndStalls(t *testing.T) {
	rec := &recordingTB{TB: t}
	s := NewServer(rec, Reply{Stall: 10 * time.Second, Content: "late"})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	if resp, _ := post(t, ctx, s.URL(), `{"model":"m"}`); resp != nil {
		t.Errorf("a stalled reply was answered: %d", resp.StatusCode)
	}
	if time.Since(start) > 2*time.Second {
		t.Error("the stall did not end with the client")
	}
	resp, _ := post(t, context.Background(), s.URL(), `{"model":"m"}`)
	if resp == nil || resp.StatusCode != 500 {
		t.Fatalf("request past the script = %v", resp)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.errs) != 1 || !strings.Contains(rec.errs[0], "request 2 has no scripted reply") {
		t.Errorf("test errors = %q", rec.errs)
	}
}
