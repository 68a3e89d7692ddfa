package mcp

import (
	"encoding/json"
	"fmt"
)

// Description is the tool list a run saw, as its trace header records it (Describe):
// each server's start, then every tool listed, offered or refused, with what R3 was told.
type Description struct {
	Servers []ServerStatus `json:"servers"`
	Tools   []Tool         `json:"tools"`
}

// ParseDescription reads a trace header's tool list back.
func ParseDescription(s string) (Description, error) {
	var d Description
	if err := json.Unmarshal([]byte(s), &d); err != nil {
		return Description{}, fmt.Errorf("the MCP tool list: %w", err)
	}
	return d, nil
}
