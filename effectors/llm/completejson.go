package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/strictjson"
)

// OutputError is returned by CompleteJSON when both the answer and its corrected version
// were unusable. It names both problems.
type OutputError struct {
	First  error
	Second error
}

func (e *OutputError) Error() string {
	return fmt.Sprintf("llm: model output rejected twice: first answer: %v; corrected answer: %v", e.First, e.Second)
}

// Unwrap exposes both problems to errors.Is / errors.As.
func (e *OutputError) Unwrap() []error { return []error{e.First, e.Second} }

// correctionPrompt is the user turn that asks for a corrected answer; %v is the problem.
const correctionPrompt = "Your previous reply could not be used: %v. Reply again with only the corrected JSON value: no prose, no code fences, no fields other than those asked for."

// CompleteJSON asks m for a JSON answer and decodes it into T. The output is cleaned with
// ExtractJSON and decoded strictly: a field that T does not declare is an error (models
// that invent fields have usually misread the contract, and a silent drop would hide
// that), as is trailing data inside the extracted value. validate, when not nil, checks
// the decoded value. On the first failure the model gets exactly one corrective turn: its
// bad answer is appended followed by a user message quoting the problem. A second
// failure returns an *OutputError naming both. The responses of every call made are
// returned so the caller can record them and their usage (see TotalUsage).
func CompleteJSON[T any](ctx context.Context, m ChatModel, req contract.ModelRequest, validate func(T) error) (T, []contract.ModelResponse, error) {
	var zero T
	resp, err := m.Complete(ctx, req)
	resps := []contract.ModelResponse{resp}
	if err != nil {
		return zero, resps, err
	}
	v, first := decodeChecked(resp, validate)
	if first == nil {
		return v, resps, nil
	}

	retry := req
	retry.Messages = make([]contract.ModelMessage, 0, len(req.Messages)+2)
	retry.Messages = append(retry.Messages, req.Messages...)
	if resp.Content != "" {
		retry.Messages = append(retry.Messages, AssistantTurn(resp.Content, nil))
	}
	retry.Messages = append(retry.Messages, contract.ModelMessage{Role: RoleUser, Content: fmt.Sprintf(correctionPrompt, first)})

	resp2, err := m.Complete(ctx, retry)
	resps = append(resps, resp2)
	if err != nil {
		return zero, resps, fmt.Errorf("llm: corrective retry after %v: %w", first, err)
	}
	v, second := decodeChecked(resp2, validate)
	if second != nil {
		return zero, resps, &OutputError{First: first, Second: second}
	}
	return v, resps, nil
}

// decodeChecked extracts, strictly decodes and validates one response.
func decodeChecked[T any](resp contract.ModelResponse, validate func(T) error) (T, error) {
	var v T
	if resp.Content == "" && resp.Refusal != "" {
		return v, fmt.Errorf("the model refused instead of answering: %q", resp.Refusal)
	}
	if resp.Content == "" {
		return v, fmt.Errorf("the reply has no text content (finish reason %q, %d tool calls)", resp.FinishReason, len(resp.ToolCalls))
	}
	raw, err := ExtractJSON(resp.Content)
	if err == nil {
		err = DecodeStrict(raw, &v)
	}
	if err != nil && resp.FinishReason == "length" {
		// The endpoint says it cut the reply; asking again for the same length would
		// be cut again.
		return v, fmt.Errorf("the reply stopped at the token limit (finish reason \"length\"); answer more briefly: %w", err)
	}
	if err != nil {
		return v, err
	}
	if validate != nil {
		if err := validate(v); err != nil {
			return v, fmt.Errorf("the JSON does not meet the contract: %w", err)
		}
	}
	return v, nil
}

// DecodeStrict decodes one JSON value into v, refusing fields v does not declare and any
// data after the value. Type errors name the field and both types.
func DecodeStrict(raw []byte, v any) error {
	err := strictjson.Decode(raw, v)
	if errors.Is(err, strictjson.ErrTrailing) {
		return errors.New("decoding the JSON: extra data after the value")
	}
	if err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			field := te.Field
			if field == "" {
				field = "(top level)"
			}
			return fmt.Errorf("field %q: expected %s, got a JSON %s", field, te.Type, te.Value)
		}
		return fmt.Errorf("decoding the JSON: %w", err)
	}
	return nil
}
