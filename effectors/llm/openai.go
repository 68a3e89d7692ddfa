package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	openai "github.com/sashabaranov/go-openai"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/linecap"
)

// Defaults of OpenAIOptions.
const (
	DefaultBaseURL       = "https://api.openai.com/v1"
	DefaultTimeout       = 120 * time.Second
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 1 * time.Second
	DefaultMaxDelay      = 30 * time.Second
	DefaultMaxRetryAfter = 2 * time.Minute
)

// OpenAIOptions configures an OpenAIModel. Zero values take the defaults above; Sleep,
// Jitter and Clock are injected so tests never wait and can assert the delays.
type OpenAIOptions struct {
	BaseURL string
	APIKey  Secret
	Model   string // used when a ChatRequest names none

	Timeout       time.Duration // per attempt
	MaxAttempts   int           // total attempts, first one included
	BaseDelay     time.Duration // backoff before the second attempt
	MaxDelay      time.Duration // backoff cap
	MaxRetryAfter time.Duration // a longer Retry-After ends the call instead of waiting
	// MaxResponse bounds a response body and the text of an answer, in bytes; 0 means
	// contract.MaxModelResponse, the most a trace line can hold of one.
	MaxResponse int64

	Sleep      SleepFunc
	Jitter     Jitter
	Clock      clock.Clock
	HTTPClient *http.Client
}

// OpenAIModel is a ChatModel on go-openai for any OpenAI-compatible endpoint. It is safe
// for concurrent use. The key lives only inside the go-openai client and is scrubbed
// from every error.
type OpenAIModel struct {
	client *openai.Client
	key    Secret
	opts   OpenAIOptions
}

var _ ChatModel = (*OpenAIModel)(nil)

// NewOpenAIModel builds the client. It fails on a base URL that is not absolute http(s)
// and on negative limits.
func NewOpenAIModel(opts OpenAIOptions) (*OpenAIModel, error) {
	if opts.BaseURL == "" {
		opts.BaseURL = DefaultBaseURL
	}
	u, err := url.Parse(opts.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("llm: base URL %q: want an absolute http(s) URL such as %s",
			opts.APIKey.Scrub(opts.BaseURL), DefaultBaseURL)
	}
	if opts.Timeout < 0 || opts.MaxAttempts < 0 || opts.BaseDelay < 0 || opts.MaxDelay < 0 || opts.MaxRetryAfter < 0 || opts.MaxResponse < 0 {
		return nil, errors.New("llm: timeout, attempts, delays and the response limit must not be negative")
	}
	if opts.MaxResponse == 0 || opts.MaxResponse > contract.MaxModelResponse {
		// More would be refused by the trace anyway: the limit is the trace's.
		opts.MaxResponse = contract.MaxModelResponse
	}
	setDefault(&opts.Timeout, DefaultTimeout)
	setDefault(&opts.BaseDelay, DefaultBaseDelay)
	setDefault(&opts.MaxDelay, DefaultMaxDelay)
	setDefault(&opts.MaxRetryAfter, DefaultMaxRetryAfter)
	if opts.MaxAttempts == 0 {
		opts.MaxAttempts = DefaultMaxAttempts
	}
	if opts.Sleep == nil {
		opts.Sleep = sleepTimer
	}
	if opts.Jitter == nil {
		opts.Jitter = newLockedJitter()
	}
	if opts.Clock == nil {
		opts.Clock = clock.System{}
	}
	if opts.HTTPClient == nil {
		opts.HTTPClient = &http.Client{}
	}
	cfg := openai.DefaultConfig(opts.APIKey.Reveal())
	cfg.BaseURL = strings.TrimRight(opts.BaseURL, "/")
	cfg.HTTPClient = capturingDoer{client: opts.HTTPClient, maxBody: opts.MaxResponse}
	return &OpenAIModel{client: openai.NewClientWithConfig(cfg), key: opts.APIKey, opts: opts}, nil
}

func setDefault(d *time.Duration, def time.Duration) {
	if *d == 0 {
		*d = def
	}
}

// String describes the model without its key.
func (m *OpenAIModel) String() string {
	return fmt.Sprintf("openai(%s, model %q)", m.key.Scrub(m.opts.BaseURL), m.opts.Model)
}

// GoString keeps %#v from printing the client's fields, the key among them.
func (m *OpenAIModel) GoString() string { return m.String() }

// attemptFailure is one failed attempt, classified.
type attemptFailure struct {
	err        error // already scrubbed
	retryable  bool
	retryAfter time.Duration
	hasAfter   bool
	kind       string // one of the Kind constants, "" for a plain error status
}

// Complete sends req, retrying retryable failures with backoff. The returned response's
// Attempts counts every HTTP call made; on error the response still carries Attempts.
// When the call took more than one attempt or failed, AttemptLog says what each attempt
// got and how long the client waited after it; a hook set with WithRetryHook hears each
// retry before the wait.
func (m *OpenAIModel) Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error) {
	wire, err := m.toWire(req)
	if err != nil {
		return contract.ModelResponse{}, err
	}
	var log []contract.ModelAttempt
	for attempt := 1; ; attempt++ {
		resp, status, note, fail := m.attempt(ctx, wire)
		if fail == nil {
			out, err := fromWire(resp)
			if err != nil && note != "" {
				err = fmt.Errorf("%w; %s", err, note)
			}
			out.Attempts = attempt
			if len(log) > 0 || err != nil {
				a := contract.ModelAttempt{N: attempt, Status: status}
				if err != nil {
					a.Error = err.Error()
				}
				out.AttemptLog = append(log, a)
			}
			if err != nil {
				return out, fmt.Errorf("llm: model %q: %w", wire.Model, err)
			}
			return out, nil
		}
		a := contract.ModelAttempt{N: attempt, Status: status, Kind: fail.kind, Error: fail.err.Error()}
		if fail.hasAfter {
			a.RetryAfterMS = millis(fail.retryAfter)
		}
		failed := func() contract.ModelResponse {
			return contract.ModelResponse{Model: wire.Model, Attempts: attempt, AttemptLog: append(log, a)}
		}
		if err := ctx.Err(); err != nil {
			a.Kind = KindCanceled
			return failed(), fmt.Errorf("llm: model %q: attempt %d: %w", wire.Model, attempt, err)
		}
		if !fail.retryable {
			return failed(), fmt.Errorf("llm: model %q: attempt %d: %w", wire.Model, attempt, fail.err)
		}
		if attempt >= m.opts.MaxAttempts {
			return failed(), &ExhaustedError{Model: wire.Model, Attempts: attempt, Last: fail.err}
		}
		wait := backoff(attempt, m.opts.BaseDelay, m.opts.MaxDelay, m.opts.Jitter)
		if fail.hasAfter {
			if fail.retryAfter > m.opts.MaxRetryAfter {
				return failed(), fmt.Errorf("llm: model %q: attempt %d: %w; the endpoint asks to retry after %s, beyond the %s limit",
					wire.Model, attempt, fail.err, fail.retryAfter, m.opts.MaxRetryAfter)
			}
			wait = fail.retryAfter
		}
		a.WaitMS = millis(wait)
		log = append(log, a)
		if hook := RetryHookFrom(ctx); hook != nil {
			hook(Retry{Model: wire.Model, Failed: a, Max: m.opts.MaxAttempts})
		}
		if err := m.opts.Sleep(ctx, wait); err != nil {
			return contract.ModelResponse{Model: wire.Model, Attempts: attempt, AttemptLog: log},
				fmt.Errorf("llm: model %q: waiting to retry after attempt %d: %w", wire.Model, attempt, err)
		}
	}
}

// attempt makes one HTTP call under the per-call timeout and classifies its failure. The
// status is the HTTP status of the response, 0 when none arrived. A completion without
// choices comes with a note of the error its body carries, if any.
func (m *OpenAIModel) attempt(ctx context.Context, wire openai.ChatCompletionRequest) (openai.ChatCompletionResponse, int, string, *attemptFailure) {
	callCtx, cancel := context.WithTimeout(ctx, m.opts.Timeout)
	defer cancel()
	callCtx, capt := withCapture(callCtx)
	resp, err := m.client.CreateChatCompletion(callCtx, wire)
	status, after := capt.get()
	if tl := capt.overLimit(); tl != nil {
		// Whatever go-openai made of a body cut off at the limit, the answer is refused:
		// retrying would fetch the same answer again.
		return openai.ChatCompletionResponse{}, status, "", &attemptFailure{err: tl, kind: KindTooLarge}
	}
	if err == nil {
		// A body within the limit can still decode to more text (an invalid UTF-8 byte
		// becomes a three-byte replacement character).
		if out, _ := fromWire(resp); out.TextSize() > m.opts.MaxResponse {
			tl := &ResponseTooLargeError{Size: out.TextSize(), Max: m.opts.MaxResponse}
			return openai.ChatCompletionResponse{}, status, "", &attemptFailure{err: tl, kind: KindTooLarge}
		}
		note := ""
		if len(resp.Choices) == 0 {
			if msg := errorInBody(capt.bodyStart()); msg != "" {
				note = "the body carries an error instead: " + m.scrubCut(msg)
			}
		}
		return resp, status, note, nil
	}
	fail := &attemptFailure{}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	var urlErr *url.Error
	switch {
	// A RequestError first: when an error body's "error" is not an object (mock-llm's 404
	// says "error":"Not Found"), go-openai wraps an empty APIError in it, and only the
	// body says what went wrong.
	case errors.As(err, &reqErr):
		msg := string(reqErr.Body)
		if strings.TrimSpace(msg) == "" && reqErr.Err != nil {
			msg = reqErr.Err.Error()
		}
		fail.err = &StatusError{StatusCode: reqErr.HTTPStatusCode, Message: m.scrubCut(strings.TrimSpace(msg))}
		if !json.Valid(reqErr.Body) {
			fail.kind = KindNonJSON
		}
	case errors.As(err, &apiErr):
		fail.err = &StatusError{StatusCode: apiErr.HTTPStatusCode, Message: m.scrubCut(apiErr.Message)}
	case errors.Is(callCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		fail.err = &TimeoutError{After: m.opts.Timeout}
		fail.retryable, fail.kind = true, KindTimeout
		return resp, 0, "", fail
	case errors.As(err, &urlErr):
		fail.err = &TransportError{Message: m.scrubCut(err.Error())}
		fail.retryable, fail.kind = true, KindConnection
		return resp, status, "", fail
	default:
		// The status line arrived but the body did not read as a completion: cut short
		// (worth another attempt) or not JSON at all (not worth one). go-openai's decoding
		// error can name another field than the one at fault, so the body is quoted.
		msg := m.scrubCut(err.Error())
		fail.kind = bodyFailureKind(err)
		if b := capt.bodyStart(); fail.kind == KindNonJSON && len(b) > 0 {
			msg += "; the body reads: " + m.scrubCut(string(b))
		}
		fail.err = &TransportError{Message: msg}
		fail.retryable = fail.kind == KindConnection
		return resp, status, "", fail
	}
	var se *StatusError
	if errors.As(fail.err, &se) {
		if se.StatusCode == 0 {
			se.StatusCode = status
		}
		status = se.StatusCode
		fail.retryable = retryableStatus(se.StatusCode)
	}
	fail.retryAfter, fail.hasAfter = parseRetryAfter(after, m.opts.Clock.Now())
	return resp, status, "", fail
}

// errorInBody is the error a completion's body carries beside (or instead of) its
// choices, as some proxies answer with status 200: the error's message, or the error as
// sent when it has none; "" when there is none.
func errorInBody(body []byte) string {
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil || len(v.Error) == 0 || string(v.Error) == "null" {
		return ""
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(v.Error, &obj) == nil && obj.Message != "" {
		return obj.Message
	}
	return string(v.Error)
}

// bodyFailureKind classifies an error met while reading a response body.
func bodyFailureKind(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET):
		return KindConnection
	case errors.As(err, &syntax) || errors.As(err, &typ):
		return KindNonJSON
	default:
		return KindTransport
	}
}

func (m *OpenAIModel) scrubCut(s string) string {
	return linecap.Clip(m.key.Scrub(s), maxErrorBody)
}

// toWire converts a ChatRequest into go-openai's request.
func (m *OpenAIModel) toWire(req contract.ModelRequest) (openai.ChatCompletionRequest, error) {
	model := req.Model
	if model == "" {
		model = m.opts.Model
	}
	if model == "" {
		return openai.ChatCompletionRequest{}, errors.New("llm: request names no model and the client has no default model")
	}
	wire := openai.ChatCompletionRequest{Model: model, Seed: req.Seed}
	for i, msg := range req.Messages {
		wm := openai.ChatCompletionMessage{Role: msg.Role, Content: msg.Content, ToolCallID: msg.ToolCallID}
		if msg.Role == "" {
			return wire, fmt.Errorf("llm: message %d has no role", i)
		}
		for _, tc := range msg.ToolCalls {
			wm.ToolCalls = append(wm.ToolCalls, openai.ToolCall{
				ID:       tc.ID,
				Type:     openai.ToolTypeFunction,
				Function: openai.FunctionCall{Name: tc.Name, Arguments: tc.Arguments},
			})
		}
		wire.Messages = append(wire.Messages, wm)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		if !json.Valid(params) {
			return wire, fmt.Errorf("llm: tool %q: parameters are not valid JSON", t.Name)
		}
		wire.Tools = append(wire.Tools, openai.Tool{
			Type:     openai.ToolTypeFunction,
			Function: &openai.FunctionDefinition{Name: t.Name, Description: t.Description, Parameters: params},
		})
	}
	if req.Temperature != nil {
		// go-openai drops a zero temperature (omitempty), which the endpoint reads as its
		// default of 1; the smallest positive float32 is sent instead (go-openai issue #9).
		t := float32(*req.Temperature)
		if t == 0 {
			t = math.SmallestNonzeroFloat32
		}
		wire.Temperature = t
	}
	if req.MaxTokens > 0 {
		if usesCompletionTokens(model) {
			wire.MaxCompletionTokens = req.MaxTokens
		} else {
			wire.MaxTokens = req.MaxTokens
		}
	}
	return wire, nil
}

// usesCompletionTokens tells the model families that refuse max_tokens and want
// max_completion_tokens (go-openai rejects the former for them before sending).
func usesCompletionTokens(model string) bool {
	for _, p := range []string{"o1", "o3", "o4", "gpt-5"} {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// fromWire converts go-openai's response into a ChatResponse.
func fromWire(resp openai.ChatCompletionResponse) (contract.ModelResponse, error) {
	out := contract.ModelResponse{
		Model: resp.Model,
		Usage: contract.ModelUsage{
			PromptTokens:     resp.Usage.PromptTokens,
			CompletionTokens: resp.Usage.CompletionTokens,
			TotalTokens:      resp.Usage.TotalTokens,
		},
	}
	if len(resp.Choices) == 0 {
		return out, ErrNoChoices
	}
	choice := resp.Choices[0]
	out.Content = choice.Message.Content
	if out.Content == "" {
		// Some endpoints send the content as an array of parts; go-openai reads it into
		// MultiContent and leaves Content empty.
		var text strings.Builder
		for _, part := range choice.Message.MultiContent {
			if part.Type == openai.ChatMessagePartTypeText {
				text.WriteString(part.Text)
			}
		}
		out.Content = text.String()
	}
	out.Refusal = choice.Message.Refusal
	out.ReasoningContent = choice.Message.ReasoningContent
	out.FinishReason = string(choice.FinishReason)
	for _, tc := range choice.Message.ToolCalls {
		out.ToolCalls = append(out.ToolCalls, contract.ModelToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
	}
	return out, nil
}
