package mcp

import (
	"fmt"

	"github.com/agentspine/spine/contract"
)

// UnavailableError is a server that could not be started, listed or reached, or that died:
// a fault of kind tool_unavailable, not a result of the tool.
type UnavailableError struct {
	Server string
	Err    error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("MCP server %s is unavailable: %v", e.Server, e.Err)
}

func (e *UnavailableError) Unwrap() error { return e.Err }

// FaultKind is the fault this error is, for the role pipeline.
func (e *UnavailableError) FaultKind() string { return contract.FaultToolUnavailable }

// ArgsError is a call whose arguments do not fit the tool's schema; Field names the
// argument ("" for the arguments as a whole).
type ArgsError struct {
	Tool    string
	Field   string
	Problem string
}

func (e *ArgsError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: arguments: %s", e.Tool, e.Problem)
	}
	return fmt.Sprintf("%s: argument %s: %s", e.Tool, e.Field, e.Problem)
}
