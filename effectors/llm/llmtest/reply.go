package llmtest

import (
	"encoding/json"
	"time"
)

// Reply is one scripted answer. With Body empty, a 2xx status gets a chat completion
// built from Content, ToolCalls, FinishReason and the token counts, and an error status
// gets an OpenAI error object whose message is ErrorMessage.
type Reply struct {
	Status    int               // HTTP status; 0 means 200
	Header    map[string]string // extra response headers, e.g. "Retry-After"
	Body      string            // raw body, sent as is when set
	Content   string
	ToolCalls []ToolCall
	// ReasoningContent is sent as the message's reasoning_content, as reasoning
	// endpoints (DeepSeek, vLLM, Qwen) return it.
	ReasoningContent string
	FinishReason     string // default "stop", or "tool_calls" when ToolCalls is set
	ErrorMessage     string
	Model            string // model named in the response; default: the requested one

	PromptTokens     int
	CompletionTokens int

	// Stall delays the answer; if the client gives up first, nothing is sent.
	Stall time.Duration
	// Begin, when set, is called as the request this reply answers arrives, before
	// anything is sent: a test acts at that exact point of a run (cancels it, say)
	// instead of after a sleep.
	Begin func()
	// EchoAuth appends the request's Authorization header to the error message (or to
	// Body), to prove that a client keeps its key out of its errors.
	EchoAuth bool
}

// ToolCall is a function call in a scripted reply.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string
}

// Text is a 200 reply with the given content.
func Text(content string) Reply { return Reply{Content: content} }

// Fail is an error reply with the given status and message.
func Fail(status int, message string) Reply { return Reply{Status: status, ErrorMessage: message} }

// RateLimited is a 429 reply carrying the given Retry-After value.
func RateLimited(retryAfter string) Reply {
	return Reply{Status: 429, ErrorMessage: "rate limit reached", Header: map[string]string{"Retry-After": retryAfter}}
}

// wire types of a chat completion, as an endpoint sends them.
type wireResponse struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   wireUsage    `json:"usage"`
}

type wireChoice struct {
	Index        int         `json:"index"`
	Message      wireMessage `json:"message"`
	FinishReason string      `json:"finish_reason"`
}

type wireMessage struct {
	Role             string         `json:"role"`
	Content          string         `json:"content"`
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

type wireToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

type wireError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// body renders the reply's JSON body for a request that asked for model.
func (r Reply) body(seq int, model, auth string) []byte {
	if r.Body != "" {
		if r.EchoAuth {
			return []byte(r.Body + " Authorization: " + auth)
		}
		return []byte(r.Body)
	}
	if r.status() >= 300 {
		var e wireError
		e.Error.Message = r.ErrorMessage
		if e.Error.Message == "" {
			e.Error.Message = "scripted failure"
		}
		if r.EchoAuth {
			e.Error.Message += " (Authorization: " + auth + ")"
		}
		e.Error.Type = "scripted_error"
		b, _ := json.Marshal(e) // plain structs of strings always marshal
		return b
	}
	if r.Model != "" {
		model = r.Model
	}
	msg := wireMessage{Role: "assistant", Content: r.Content, ReasoningContent: r.ReasoningContent}
	finish := r.FinishReason
	for _, tc := range r.ToolCalls {
		msg.ToolCalls = append(msg.ToolCalls, wireToolCall{ID: tc.ID, Type: "function",
			Function: wireFunction{Name: tc.Name, Arguments: tc.Arguments}})
	}
	if finish == "" {
		finish = "stop"
		if len(r.ToolCalls) > 0 {
			finish = "tool_calls"
		}
	}
	resp := wireResponse{
		ID:      "chatcmpl-llmtest-" + itoa(seq),
		Object:  "chat.completion",
		Created: 1700000000,
		Model:   model,
		Choices: []wireChoice{{Message: msg, FinishReason: finish}},
		Usage: wireUsage{PromptTokens: r.PromptTokens, CompletionTokens: r.CompletionTokens,
			TotalTokens: r.PromptTokens + r.CompletionTokens},
	}
	b, _ := json.Marshal(resp) // plain structs of strings and ints always marshal
	return b
}

func (r Reply) status() int {
	if r.Status == 0 {
		return 200
	}
	return r.Status
}

func itoa(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}
