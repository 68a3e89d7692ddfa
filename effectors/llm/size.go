package llm

import "github.com/agentspine/spine/contract"

// LimitResponse holds a model's answer to the size limit: one whose text is over max
// bytes (contract.MaxModelResponse when max is 0) comes back without its text (content,
// refusal, tool calls) and with a *ResponseTooLargeError naming its size; its model,
// usage and attempts are kept. A response within the limit, or a call that already
// failed, is returned as it is. Every ChatModel's answer passes through it before it is
// journalled or read, so no answer over the limit is kept whole.
func LimitResponse(resp contract.ModelResponse, err error, max int64) (contract.ModelResponse, error) {
	if max <= 0 {
		max = contract.MaxModelResponse
	}
	if err != nil {
		return resp, err
	}
	if size := resp.TextSize(); size > max {
		resp.Content, resp.Refusal, resp.ToolCalls = "", "", nil
		return resp, &ResponseTooLargeError{Size: size, Max: max}
	}
	return resp, nil
}
