package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The exchange shapes: what a model call and a tool call record in the trace's exchange
// events, declared once. The model's edge (effectors/llm) and the sandbox
// (effectors/sandbox) write them; the reader of a recorded run (runlog) and everything
// that shows a run read them, without importing an effector. A field added here is
// recorded by its writer and shown by the views that want it; its JSON name, order and
// omitempty are the trace's bytes and must not change.

// ModelRequest is one call to a model. An empty Model means the implementation's
// default. Temperature and Seed are pointers so that an explicit zero is
// distinguishable from "not set".
type ModelRequest struct {
	Model       string         `json:"model,omitempty"`
	Messages    []ModelMessage `json:"messages"`
	Tools       []ModelTool    `json:"tools,omitempty"`
	Temperature *float64       `json:"temperature,omitempty"`
	MaxTokens   int            `json:"max_tokens,omitempty"`
	Seed        *int           `json:"seed,omitempty"`
}

// ModelMessage is one turn of the conversation. An assistant turn may carry ToolCalls;
// a tool turn answers one of them and names it in ToolCallID.
type ModelMessage struct {
	Role       string          `json:"role"`
	Content    string          `json:"content,omitempty"`
	ToolCalls  []ModelToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

// ModelToolCall is a function call requested by the model. Arguments is the JSON text
// the model produced, unparsed: it may be invalid and the tool dispatcher says so.
type ModelToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// ModelTool declares a function the model may call. Parameters is a JSON-schema object.
type ModelTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// ModelResponse is the model's answer to one ModelRequest. Attempts counts the HTTP
// calls made, retries included; AttemptLog says what each one got when there was more
// than one or the call failed (a first attempt that succeeded leaves it empty).
type ModelResponse struct {
	Model     string          `json:"model,omitempty"`
	Content   string          `json:"content"`
	ToolCalls []ModelToolCall `json:"tool_calls,omitempty"`
	// Refusal is the model's stated refusal, which OpenAI sends instead of content.
	Refusal string `json:"refusal,omitempty"`
	// ReasoningContent is the reasoning a model returned beside its answer (DeepSeek,
	// vLLM and Qwen endpoints send it as the message's reasoning_content). It is kept so
	// the exchange's record is complete; no role puts it into a later request.
	ReasoningContent string         `json:"reasoning_content,omitempty"`
	FinishReason     string         `json:"finish_reason,omitempty"`
	Usage            ModelUsage     `json:"usage"`
	Attempts         int            `json:"attempts"`
	AttemptLog       []ModelAttempt `json:"attempt_log,omitempty"`
}

// TextSize is the size of what a response says: its content, refusal and tool calls
// (ids, names and arguments), in bytes.
func (r ModelResponse) TextSize() int64 {
	n := len(r.Content) + len(r.Refusal)
	for _, tc := range r.ToolCalls {
		n += len(tc.ID) + len(tc.Name) + len(tc.Arguments)
	}
	return int64(n)
}

// ModelUsage is the token count the endpoint reported for one call. The exchange event
// records it beside the response too, and that record is the one a reader believes.
type ModelUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// Add returns the sum of two usages.
func (u ModelUsage) Add(v ModelUsage) ModelUsage {
	return ModelUsage{
		PromptTokens:     u.PromptTokens + v.PromptTokens,
		CompletionTokens: u.CompletionTokens + v.CompletionTokens,
		TotalTokens:      u.TotalTokens + v.TotalTokens,
	}
}

// Kinds of an attempt that failed below HTTP, or whose body could not be read.
const (
	AttemptTimeout    = "timeout"            // no complete answer within the per-call timeout
	AttemptConnection = "connection"         // refused, reset or dropped before a complete answer
	AttemptNonJSON    = "non_json_body"      // the body is not the OpenAI JSON (an HTML error page, a proxy's text)
	AttemptCanceled   = "canceled"           // the caller's context ended during the attempt
	AttemptTransport  = "transport"          // any other failure of the HTTP client
	AttemptTooLarge   = "response_too_large" // the answer is over the size limit
)

// ModelAttempt is one HTTP call made for a model call, as the journal keeps it: what
// came back and, when another attempt followed, the wait chosen before it. It holds no
// wall-clock reading, so a recorded exchange replays byte for byte. Error has the API
// key scrubbed and is cut to a few hundred characters, like the call's error.
type ModelAttempt struct {
	N            int    `json:"n"`
	Status       int    `json:"status,omitempty"` // HTTP status; 0 when none arrived
	Kind         string `json:"kind,omitempty"`   // one of the Attempt* kinds, "" for a plain status
	RetryAfterMS *int64 `json:"retry_after_ms,omitempty"`
	WaitMS       *int64 `json:"wait_ms,omitempty"`
	Error        string `json:"error,omitempty"`
}

// RetryAfter is the delay the endpoint asked for; ok is false when it named none.
func (a ModelAttempt) RetryAfter() (time.Duration, bool) {
	if a.RetryAfterMS == nil {
		return 0, false
	}
	return time.Duration(*a.RetryAfterMS) * time.Millisecond, true
}

// Wait is the delay chosen before the next attempt; ok is false when none followed.
func (a ModelAttempt) Wait() (time.Duration, bool) {
	if a.WaitMS == nil {
		return 0, false
	}
	return time.Duration(*a.WaitMS) * time.Millisecond, true
}

// Answered reports whether the attempt got an answer: no failure kind, no error, and
// no status or a 2xx one.
func (a ModelAttempt) Answered() bool {
	return a.Kind == "" && a.Error == "" && (a.Status == 0 || a.Status/100 == 2)
}

// Cause says briefly why the attempt failed: "HTTP 429", "timeout", "HTTP 502 with a
// non-JSON body".
func (a ModelAttempt) Cause() string {
	switch {
	case a.Kind == AttemptConnection && a.Status != 0:
		return fmt.Sprintf("HTTP %d answer cut short", a.Status)
	case a.Kind == AttemptConnection:
		return "connection refused or dropped"
	case a.Kind == AttemptNonJSON && a.Status != 0:
		return fmt.Sprintf("HTTP %d with a non-JSON body", a.Status)
	case a.Kind != "":
		return a.Kind
	case a.Status != 0:
		return fmt.Sprintf("HTTP %d", a.Status)
	default:
		return "failed"
	}
}

// Short is the cause in a word or a number, for a status line: "429", "timeout".
func (a ModelAttempt) Short() string {
	switch {
	case a.Kind != "" && a.Kind != AttemptNonJSON:
		return a.Kind
	case a.Status != 0:
		return fmt.Sprint(a.Status)
	case a.Kind != "":
		return a.Kind
	default:
		return "failed"
	}
}

// ToolRequest is a tool call as its exchange records it: the model's call id and its
// arguments text.
type ToolRequest struct {
	ID        string `json:"id"`
	Arguments string `json:"arguments"`
}

// ToolResponse is the outcome of one tool call, the response of its exchange. Output is
// what the model sees; Evidence is the tool_calls entry (FormatToolCall). A non-zero
// exit status or a timeout is a result, not an error: the command ran. Refused is set
// when the call did not run.
type ToolResponse struct {
	Tool      string `json:"tool"`
	Target    string `json:"target"`
	Output    string `json:"output"`
	ExitCode  int    `json:"exit_code"`
	TimedOut  bool   `json:"timed_out,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
	Refused   bool   `json:"refused,omitempty"`
	Evidence  string `json:"evidence"`
}

// Result is the call's outcome for a reader: its evidence without the "tool:target → "
// it repeats (a summary already names both), else its output.
func (r ToolResponse) Result() string {
	if r.Evidence == "" {
		return r.Output
	}
	if _, after, ok := strings.Cut(r.Evidence, " → "); ok {
		return after
	}
	return r.Evidence
}
