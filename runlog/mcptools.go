package runlog

import (
	"encoding/json"
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// MCPTools reads the MCP tool list a run's header records (contract.MetaMCPTools);
// recorded is false when the run recorded none.
func MCPTools(h trace.Header) (tools contract.MCPTools, recorded bool, err error) {
	meta := h.Meta[contract.MetaMCPTools]
	if meta == "" {
		return contract.MCPTools{}, false, nil
	}
	if err := json.Unmarshal([]byte(meta), &tools); err != nil {
		return contract.MCPTools{}, true, fmt.Errorf("the MCP tool list: %w", err)
	}
	return tools, true, nil
}
