package llm

import (
	"context"

	"github.com/agentspine/spine/contract"
)

// ChatModel completes one chat exchange. Implementations are the only place a model is
// called; record/replay wraps this interface, so requests and responses are plain data.
type ChatModel interface {
	Complete(ctx context.Context, req contract.ModelRequest) (contract.ModelResponse, error)
}

// Message roles of the chat wire format.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// The request, response and their parts are the model exchange's shapes, declared in
// contract so that a reader of a recorded run needs no effector; here they keep the
// names of the model's edge, which writes them.
type ()

// TotalUsage sums the usage of several responses, e.g. an answer and its corrective retry.
func TotalUsage(resps []contract.ModelResponse) contract.ModelUsage {
	var total contract.ModelUsage
	for _, r := range resps {
		total = total.Add(r.Usage)
	}
	return total
}
