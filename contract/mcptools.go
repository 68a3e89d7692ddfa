package contract

import "encoding/json"

// MetaMCPTools is the trace header's meta field holding the MCP servers' tool list as
// the run saw it (MCPTools, as JSON): every tool offered (its name, description and
// schema as R3 was told them) or refused (and why), and every server that could not
// start. effectors/mcp writes it; runlog reads it.
const MetaMCPTools = "mcp_tools"

// MCPTools is the tool list a run saw: each server's start, then every tool listed,
// offered or refused, with what R3 was told. Its JSON is the header's bytes: field
// names, order and omitempty must not change.
type MCPTools struct {
	Servers []MCPServer `json:"servers"`
	Tools   []MCPTool   `json:"tools"`
}

// MCPServer is how a server's start went.
type MCPServer struct {
	Name        string `json:"name"`
	Transport   string `json:"transport"` // stdio or http
	Unavailable string `json:"unavailable,omitempty"`
}

// MCPTool is one tool of a server as the run saw it: offered, or refused with a reason.
type MCPTool struct {
	Server      string          `json:"server"`
	Name        string          `json:"name"`              // as R3 sees it, mcp__<server>__<tool>
	Remote      string          `json:"remote"`            // the server's own name (escaped when refused)
	Description string          `json:"description"`       // as R3 is told it
	Schema      json.RawMessage `json:"schema,omitempty"`  // the input schema, as R3 is given it
	Target      string          `json:"target,omitempty"`  // the argument configured as the target
	Refused     string          `json:"refused,omitempty"` // why it is not offered
}
