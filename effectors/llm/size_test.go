package llm

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// TestAnswerOverTheLimitIsRefused: an answer over the size limit, however it is over it
// (a long body, an error body, text that grows when decoded), is refused after one
// attempt with its size, and nothing of it comes back.
func TestAnswerOverTheLimitIsRefused(t *testing.T) {
	const limit = 4096
	invalid := `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` +
		strings.Repeat("\xff", 2000) + `"},"finish_reason":"stop"}]}`
	for _, tc := range []struct {
		name   string
		reply  llmtest.Reply
		status int
		size   int64 // 0: the body's own length
	}{
		{name: "content", reply: llmtest.Text(strings.Repeat("a", 3*limit)), status: 200},
		{name: "tool call arguments", reply: llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "write_file",
			Arguments: `{"path":"big","content":"` + strings.Repeat("b", 3*limit) + `"}`}}}, status: 200},
		{name: "an error body", reply: llmtest.Fail(500, strings.Repeat("e", 3*limit)), status: 500},
		{name: "text that grows when decoded", reply: llmtest.Reply{Body: invalid}, status: 200, size: 3 * 2000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, tc.reply, llmtest.Text("never asked"))
			m, sleeps := newTestModel(t, srv, func(o *OpenAIOptions) { o.MaxResponse = limit })
			resp, err := m.Complete(context.Background(), userAsks("go"))
			var tl *ResponseTooLargeError
			if !errors.As(err, &tl) {
				t.Fatalf("got %v, want a ResponseTooLargeError", err)
			}
			want := tc.size
			if want == 0 {
				want = bodyLen(t, tc.reply)
			}
			if tl.Size != want || tl.AtLeast || tl.Max != limit {
				t.Errorf("error %+v, want size %d over %d", tl, want, limit)
			}
			if resp.Content != "" || len(resp.ToolCalls) != 0 || resp.Attempts != 1 {
				t.Errorf("response %+v: want no text and one attempt", resp)
			}
			if n := len(srv.Requests()); n != 1 || len(sleeps.got()) != 0 {
				t.Errorf("%d requests, %d waits: an answer over the limit is not asked for again", n, len(sleeps.got()))
			}
			if len(resp.AttemptLog) != 1 || resp.AttemptLog[0].Kind != KindTooLarge || resp.AttemptLog[0].Status != tc.status {
				t.Errorf("attempt log %+v, want one %s attempt with status %d", resp.AttemptLog, KindTooLarge, tc.status)
			}
		})
	}
}

// bodyLen is the length of the body the test server sends for r to the test model.
func bodyLen(t *testing.T, r llmtest.Reply) int64 {
	t.Helper()
	srv := llmtest.NewServer(t, r)
	resp, err := http.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(`{"model":"test-model","messages":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestLimitResponse: the check every model's answer passes, whatever the model.
func TestLimitResponse(t *testing.T) {
	big := contract.ModelResponse{Model: "m", Content: "x", Attempts: 1, Usage: contract.ModelUsage{TotalTokens: 7},
		ToolCalls: []contract.ModelToolCall{{ID: "c1", Name: "write_file", Arguments: strings.Repeat("a", contract.MaxModelResponse)}}}
	resp, err := LimitResponse(big, nil, 0)
	var tl *ResponseTooLargeError
	if !errors.As(err, &tl) || tl.Size != int64(contract.MaxModelResponse+1+2+10) || tl.Max != contract.MaxModelResponse {
		t.Fatalf("got %v, want the size %d", err, contract.MaxModelResponse+13)
	}
	if resp.Content != "" || resp.ToolCalls != nil || resp.Model != "m" || resp.Usage.TotalTokens != 7 || resp.Attempts != 1 {
		t.Errorf("response %+v: want its text dropped, the rest kept", resp)
	}
	small := contract.ModelResponse{Content: "ok"}
	if got, err := LimitResponse(small, nil, 0); err != nil || got.Content != "ok" {
		t.Errorf("a small answer: %+v, %v", got, err)
	}
	failed := errors.New("down")
	if _, err := LimitResponse(big, failed, 0); err != failed {
		t.Errorf("a failed call keeps its error, got %v", err)
	}
}
