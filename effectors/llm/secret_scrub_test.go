package llm

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/secrets"
)

func TestSecretValues(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want []string
	}{
		{Config{}, nil},
		{Config{APIKey: "sk-key-0123456789", BaseURL: DefaultBaseURL}, []string{"sk-key-0123456789"}},
		{Config{BaseURL: "https://bob:hunter2hunter2@llm.example/v1"}, []string{"hunter2hunter2"}},
		{Config{BaseURL: "https://tok_0123456789abcdef@llm.example/v1"}, []string{"tok_0123456789abcdef"}},
		{Config{APIKey: "k1-0123456789", BaseURL: "http://h/v1?api_key=k2-0123456789&model=m&Auth_Token=k1-0123456789"},
			[]string{"k1-0123456789", "k2-0123456789"}},
		{Config{BaseURL: "::not a url"}, nil},
	} {
		if got := tc.cfg.SecretValues(); !slices.Equal(got, tc.want) {
			t.Errorf("SecretValues(%s) = %q, want %q", tc.cfg.APIKey.Scrub(tc.cfg.BaseURL), got, tc.want)
		}
	}
}

// echoModel answers with what it was sent and remembers the request.
type echoModel struct {
	got contract.ModelRequest
	err error
}

func (e *echoModel) Complete(_ context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	e.got = req
	last := req.Messages[len(req.Messages)-1].Content
	return contract.ModelResponse{Content: "you said: " + last, ReasoningContent: "they sent " + last,
		ToolCalls: []contract.ModelToolCall{{ID: "c1", Name: "shell", Arguments: `{"command":"echo ` + last + `"}`}}}, e.err
}

func TestScrubModel(t *testing.T) {
	const key = "sk-live-9f8e7d6c5b4a3210"
	sc := secrets.New(key)
	inner := &echoModel{err: fmt.Errorf("status 401: bad key %s: %w", key, context.DeadlineExceeded)}
	req := contract.ModelRequest{Messages: []contract.ModelMessage{{Role: RoleSystem, Content: "be brief"}, {Role: RoleUser, Content: key},
		{Role: RoleAssistant, ToolCalls: []contract.ModelToolCall{{ID: "c0", Name: "shell", Arguments: `{"command":"cat ` + key + `"}`}}}}}
	req.Messages = append(req.Messages, contract.ModelMessage{Role: RoleTool, ToolCallID: "c0", Content: "key=" + key[:12] + "..." + key[len(key)-4:]})
	resp, err := ScrubModel(inner, sc).Complete(context.Background(), req)

	sent := fmt.Sprintf("%+v", inner.got)
	if strings.Contains(sent, key) || !strings.Contains(sent, `{"command":"cat [REDACTED]"}`) || !strings.Contains(sent, "key=[REDACTED]") {
		t.Errorf("the model was sent %s", sent)
	}
	if req.Messages[1].Content != key || !strings.Contains(req.Messages[2].ToolCalls[0].Arguments, key) {
		t.Error("the caller's request was modified")
	}
	if resp.Content != "you said: key=[REDACTED]" || resp.ToolCalls[0].Arguments != `{"command":"echo key=[REDACTED]"}` {
		t.Errorf("reply %q, tool call %q", resp.Content, resp.ToolCalls[0].Arguments)
	}
	if resp.ReasoningContent != "they sent key=[REDACTED]" {
		t.Errorf("reasoning %q does not hide the key", resp.ReasoningContent)
	}
	if err.Error() != "status 401: bad key [REDACTED]: context deadline exceeded" || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("error %q does not hide the key or does not unwrap", err)
	}
	if ScrubModel(inner, secrets.New()) != ChatModel(inner) {
		t.Error("a scrubber with nothing to hide should not wrap the model")
	}
}

// TestScrubModelLeavesCleanRequestsAlone: a request without secrets is passed on with
// the caller's own slices, not copies.
func TestScrubModelLeavesCleanRequestsAlone(t *testing.T) {
	inner := &echoModel{}
	req := contract.ModelRequest{Messages: []contract.ModelMessage{{Role: RoleUser, Content: "hello there"}}}
	if _, err := ScrubModel(inner, secrets.New("sk-live-9f8e7d6c5b4a3210")).Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if &inner.got.Messages[0] != &req.Messages[0] {
		t.Error("a clean request was copied")
	}
}
