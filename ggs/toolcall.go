package ggs

import (
	"strings"

	"github.com/agentspine/spine/effectors/sandbox"
)

// ToolCall is one entry of R3's tool_calls, "<tool>:<target> → <evidence>".
type ToolCall struct {
	Tool     string
	Target   string
	Evidence string
}

// ParseToolCall reads a tool_calls entry with R3's own parser (sandbox.ParseToolCall), so
// that GGS blocks exactly the tool and target that the executor recorded. It reports
// false for an entry without a tool name.
func ParseToolCall(entry string) (ToolCall, bool) {
	tool, target, evidence, ok := sandbox.ParseToolCall(entry)
	if !ok {
		return ToolCall{}, false
	}
	return ToolCall{Tool: tool, Target: target, Evidence: evidence}, true
}

// Key is the "<tool>:<target>" form used in blocked_targets, or the bare tool name when
// the call had no target.
func (c ToolCall) Key() string {
	if c.Target == "" {
		return c.Tool
	}
	return c.Tool + ":" + c.Target
}

// SplitTarget parses a blocked_targets entry ("<tool>:<target>") back into its tool and
// target, for the memory tags tool:<name> and path:<target>.
func SplitTarget(key string) (tool, target string) {
	tool, target, _ = strings.Cut(key, ":")
	return tool, target
}
