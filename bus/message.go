package bus

import (
	"encoding/json"
	"fmt"

	"github.com/agentspine/spine/spine/trace"
)

// Pseudo-messages that are not part of the role contract but that the Auditor needs to
// see: a role calling its model. A trace records them as `exchange` events named
// "llm:<role>"; FromTrace and live hosts publish them as Type TypeModelCall, From the
// role, To ToModel.
const (
	TypeModelCall = "ModelCall"
	ToModel       = "LLM"
)

// NewMessage encodes payload and returns the message to publish. The encoding is the
// snapshot subscribers will read.
func NewMessage(from, to, typ, taskID string, payload any) (trace.Message, error) {
	raw, err := json.Marshal(payload)
	if err != nil {
		return trace.Message{}, fmt.Errorf("bus: encoding %s payload from %s to %s: %w", typ, from, to, err)
	}
	return trace.Message{From: from, To: to, Type: typ, TaskID: taskID, Payload: raw}, nil
}

// routable reports what is missing for the message to be routed, or "".
func routable(m *trace.Message) string {
	switch {
	case m.From == "":
		return "from"
	case m.To == "":
		return "to"
	case m.Type == "":
		return "type"
	}
	return ""
}

// NewModelCall is the message for a role's model call, the same that FromTrace makes of
// the call's "llm:<role>" exchange event: publish it where the exchange is journalled.
// taskID may be empty; the Auditor then counts the call for the task at hand.
func NewModelCall(role, taskID string, request any) (trace.Message, error) {
	raw, err := json.Marshal(request)
	if err != nil {
		return trace.Message{}, fmt.Errorf("bus: encoding %s's model request: %w", role, err)
	}
	return trace.Message{From: role, To: ToModel, Type: TypeModelCall, TaskID: taskID,
		Payload: modelCallPayload(trace.ExchangeModel+role, raw)}, nil
}
