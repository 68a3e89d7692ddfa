package llm

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/llm/llmtest"
)

// taskSpec is a small role-output shape for the tests.
type taskSpec struct {
	Intent      string            `json:"intent"`
	Constraints map[string]string `json:"constraints"`
}

func requireIntent(v taskSpec) error {
	if v.Intent == "" {
		return errors.New(`"intent" must not be empty`)
	}
	return nil
}

func TestCompleteJSON(t *testing.T) {
	good := `{"intent":"find the largest log","constraints":{"dir":"logs"}}`
	want := taskSpec{Intent: "find the largest log", Constraints: map[string]string{"dir": "logs"}}
	cases := []struct {
		name      string
		replies   []llmtest.Reply
		wantCalls int
		wantErr   string   // substrings joined by "|"; "" means success
		wantFix   []string // substrings of the corrective user message
	}{
		{name: "clean JSON", replies: []llmtest.Reply{llmtest.Text(good)}, wantCalls: 1},
		{name: "think block", replies: []llmtest.Reply{llmtest.Text("<think>\nthe user wants {logs}\n</think>\n" + good)}, wantCalls: 1},
		{name: "code fence", replies: []llmtest.Reply{llmtest.Text("Here it is:\n```json\n" + good + "\n```\n")}, wantCalls: 1},
		{
			name:      "malformed JSON, corrected",
			replies:   []llmtest.Reply{llmtest.Text(`{"intent": "find the largest log",}`), llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{"could not be used", "does not parse", "invalid character '}'"},
		},
		{
			name:      "a refusal, then an answer",
			replies:   []llmtest.Reply{{Body: `{"choices":[{"message":{"role":"assistant","content":null,"refusal":"I cannot help with logs."},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":10,"total_tokens":110}}`}, llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{"the model refused instead of answering", "I cannot help with logs."},
		},
		{
			name:      "cut off at the token limit, corrected",
			replies:   []llmtest.Reply{{Content: `{"intent":"find the lar`, FinishReason: "length"}, llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{"stopped at the token limit", "answer more briefly", "cut off before its closing bracket"},
		},
		{
			name:      "unknown field, corrected",
			replies:   []llmtest.Reply{llmtest.Text(`{"intent":"x","success_criteria":["y"]}`), llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{`unknown field \"success_criteria\"`},
		},
		{
			name:      "wrong type, corrected",
			replies:   []llmtest.Reply{llmtest.Text(`{"intent":7}`), llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{`field \"intent\": expected string, got a JSON number`},
		},
		{
			name:      "validation failure, corrected",
			replies:   []llmtest.Reply{llmtest.Text(`{"intent":""}`), llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{"does not meet the contract", `\"intent\" must not be empty`},
		},
		{
			name:      "prose, then still prose",
			replies:   []llmtest.Reply{llmtest.Text("I cannot help with that."), llmtest.Text(`{"intent":""}`)},
			wantCalls: 2,
			wantErr:   `rejected twice|first answer: no usable JSON|"I cannot help with that."|corrected answer: the JSON does not meet the contract: "intent" must not be empty`,
		},
		{
			name:      "tool call instead of text",
			replies:   []llmtest.Reply{{ToolCalls: []llmtest.ToolCall{{ID: "c", Name: "shell", Arguments: "{}"}}}, llmtest.Text(good)},
			wantCalls: 2,
			wantFix:   []string{`no text content (finish reason \"tool_calls\", 1 tool calls)`},
		},
		{
			name:      "transport failure on the corrective call",
			replies:   []llmtest.Reply{llmtest.Text("nope"), llmtest.Fail(401, "bad key")},
			wantCalls: 2,
			wantErr:   "corrective retry after no usable JSON|status 401",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for i := range tc.replies {
				tc.replies[i].PromptTokens, tc.replies[i].CompletionTokens = 100*(i+1), 10*(i+1)
			}
			srv := llmtest.NewServer(t, tc.replies...)
			m, _ := newTestModel(t, srv, nil)
			req := userAsks("which log is the largest?")
			got, resps, err := CompleteJSON(context.Background(), m, req, requireIntent)
			if len(resps) != tc.wantCalls || len(srv.Requests()) != tc.wantCalls {
				t.Fatalf("%d responses, server saw %d requests, want %d", len(resps), len(srv.Requests()), tc.wantCalls)
			}
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("got %+v, want error %q", got, tc.wantErr)
				}
				for _, part := range strings.Split(tc.wantErr, "|") {
					if !strings.Contains(err.Error(), part) {
						t.Errorf("error %q lacks %q", err, part)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("CompleteJSON: %v", err)
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("got %+v, want %+v", got, want)
			}
			if u := TotalUsage(resps); tc.wantCalls == 2 && u != (contract.ModelUsage{PromptTokens: 300, CompletionTokens: 30, TotalTokens: 330}) {
				t.Errorf("usage = %+v", u)
			}
			if len(req.Messages) != 2 {
				t.Errorf("the caller's request was modified: %d messages", len(req.Messages))
			}
			if tc.wantCalls == 2 {
				second := srv.Requests()[1].Chat.Messages
				first := tc.replies[0].Content
				n := len(second)
				wantN := 4
				if first == "" {
					wantN = 3
				}
				if n != wantN {
					t.Fatalf("corrective request has %d messages, want %d: %+v", n, wantN, second)
				}
				if first != "" && (second[2].Role != RoleAssistant || second[2].Content != first) {
					t.Errorf("the bad answer is not replayed as the assistant turn: %+v", second[2])
				}
				fix := second[n-1]
				if fix.Role != RoleUser {
					t.Errorf("corrective turn role %q", fix.Role)
				}
				body := string(srv.Requests()[1].Body)
				for _, part := range tc.wantFix {
					if !strings.Contains(body, part) {
						t.Errorf("corrective request lacks %q:\n%s", part, fix.Content)
					}
				}
			}
		})
	}
}

func TestOutputErrorUnwrapsBoth(t *testing.T) {
	first, second := errors.New("one"), ErrNoJSON
	err := error(&OutputError{First: first, Second: second})
	if !errors.Is(err, first) || !errors.Is(err, ErrNoJSON) {
		t.Fatalf("errors.Is does not reach both problems of %v", err)
	}
}

func TestDecodeStrict(t *testing.T) {
	var v taskSpec
	for _, tc := range []struct{ in, want string }{
		{`{"intent":"a"} {"intent":"b"}`, "extra data after the value"},
		{`[1]`, `field "(top level)": expected llm.taskSpec, got a JSON array`},
		{`{"constraints":{"a":1}}`, `field "constraints": expected string, got a JSON number`},
	} {
		err := DecodeStrict([]byte(tc.in), &v)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeStrict(%s) = %v, want %q", tc.in, err, tc.want)
		}
	}
}
