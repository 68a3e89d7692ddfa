package llm

import (
	"context"
	"encoding/json"
)

// ChatModel completes one chat exchange. Implementations are the only place a model is
// called; record/replay wraps this interface, so requests and responses are plain data.
type ChatModel interface {
	Complete(ctx context.Context, req ChatRequest) (ChatResponse, error)
}

// Message roles of the chat wire format.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// ChatRequest is one call to a model. An empty Model means the implementation's default.
// Temperature and Seed are pointers so that an explicit zero is distinguishable from
// "not set".
type ChatRequest struct {
	Model       string    `json:"model,omitempty"`
	Messages    []Message `json:"messages"`
	Tools       []Tool    `json:"tools,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	MaxTokens   int       `json:"max_tokens,omitempty"`
	Seed        *int      `json:"seed,omitempty"`
}

// Message is one turn of the conversation. An assistant turn may carry ToolCalls; a tool
// turn answers one of them and names it in ToolCallID.
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// ToolCall is a function call requested by the model. Arguments is the JSON text the model
// produced, unparsed: it may be invalid and the tool dispatcher says so.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool declares a function the model may call. Parameters is a JSON-schema object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ChatResponse is the model's answer to one ChatRequest. Attempts counts the HTTP calls
// made, retries included; AttemptLog says what each one got when there was more than one
// or the call failed (a first attempt that succeeded leaves it empty).
type ChatResponse struct {
	Model     string     `json:"model,omitempty"`
	Content   string     `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Refusal is the model's stated refusal, which OpenAI sends instead of content.
	Refusal string `json:"refusal,omitempty"`
	// ReasoningContent is the reasoning a model returned beside its answer (DeepSeek,
	// vLLM and Qwen endpoints send it as the message's reasoning_content). It is kept so
	// the exchange's record is complete; no role puts it into a later request.
	ReasoningContent string    `json:"reasoning_content,omitempty"`
	FinishReason     string    `json:"finish_reason,omitempty"`
	Usage            Usage     `json:"usage"`
	Attempts         int       `json:"attempts"`
	AttemptLog       []Attempt `json:"attempt_log,omitempty"`
}

// Usage is the token count the endpoint reported for one call.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add returns the sum of two usages.
func (u Usage) Add(v Usage) Usage {
	return Usage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
	}
}

// TotalUsage sums the usage of several responses, e.g. an answer and its corrective retry.
func TotalUsage(resps []ChatResponse) Usage {
	var total Usage
	for _, r := range resps {
		total = total.Add(r.Usage)
	}
	return total
}
