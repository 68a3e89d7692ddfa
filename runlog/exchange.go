package runlog

import (
	"encoding/json"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// A recorded request or response is decoded as far as it holds the shape: a view shows
// what is there, and the raw JSON stays in the trace.Exchange for a reader that wants it
// whole. That a field did not decode is not an error of the trace.

// ModelExchange is a model call ("llm:<role>") as recorded.
type ModelExchange struct {
	Role     string
	Request  contract.ModelRequest
	Response contract.ModelResponse
	// Usage is the call's token count: the exchange's own record when it has one (it is
	// what the run metered), else the response's.
	Usage    contract.ModelUsage
	Answered bool // a response was recorded
}

// Model decodes a model call's exchange; ok is false when x is not one.
func Model(x trace.Exchange) (m ModelExchange, ok bool) {
	if m.Role, ok = strings.CutPrefix(x.Name, trace.ExchangeModel); !ok {
		return m, false
	}
	m.Answered = decodeCall(x, &m.Request, &m.Response)
	m.Usage = m.Response.Usage
	if x.Usage != nil {
		m.Usage = *x.Usage
	}
	return m, true
}

// ModelName is the model that answered, else the one asked.
func (m ModelExchange) ModelName() string {
	if m.Response.Model != "" {
		return m.Response.Model
	}
	return m.Request.Model
}

// ToolExchange is a tool call ("tool:<name>") as recorded.
type ToolExchange struct {
	Tool     string
	Request  contract.ToolRequest
	Response contract.ToolResponse
	Answered bool // a response was recorded
	// ExitCode is the recorded exit status, nil when the response records none.
	ExitCode *int
}

// Tool decodes a tool call's exchange; ok is false when x is not one.
func Tool(x trace.Exchange) (t ToolExchange, ok bool) {
	if t.Tool, ok = strings.CutPrefix(x.Name, trace.ExchangeTool); !ok {
		return t, false
	}
	t.Answered = decodeCall(x, &t.Request, &t.Response)
	var exit struct {
		Code *int `json:"exit_code"`
	}
	_ = json.Unmarshal(x.Response, &exit)
	t.ExitCode = exit.Code
	return t, true
}

// PlanCheck is R2's plan check ("check:plan"): the round and attempt of the plan checked
// and what it violated.
type PlanCheck struct {
	Round      int
	Attempt    int
	Violations []string
}

// PlanCheckOf decodes a plan check's exchange; ok is false when x is not one.
func PlanCheckOf(x trace.Exchange) (PlanCheck, bool) {
	if x.Name != trace.ExchangeCheck+"plan" {
		return PlanCheck{}, false
	}
	var req struct {
		Round   int `json:"round"`
		Attempt int `json:"attempt"`
	}
	var resp struct {
		Violations []string `json:"violations"`
	}
	decodeCall(x, &req, &resp)
	return PlanCheck{Round: req.Round, Attempt: req.Attempt, Violations: resp.Violations}, true
}

// Calibration is R2's question to shared memory ("memory:calibrate") and its answer.
type Calibration struct {
	Query  contract.MemoryQuery
	Answer contract.MemoryAnswer
}

// CalibrationOf decodes a calibration's exchange; ok is false when x is not one.
func CalibrationOf(x trace.Exchange) (Calibration, bool) {
	if x.Name != trace.ExchangeMemory+"calibrate" {
		return Calibration{}, false
	}
	var c Calibration
	decodeCall(x, &c.Query, &c.Answer)
	return c, true
}

// decodeCall decodes a call's request and response into its kind's shapes, as far as
// they go (a view shows what decodes), and says whether a response was recorded.
func decodeCall(x trace.Exchange, req, resp any) (answered bool) {
	_ = json.Unmarshal(x.Request, req)
	_ = json.Unmarshal(x.Response, resp)
	return len(x.Response) > 0 && string(x.Response) != "null"
}
