package trace

import "strings"

// ToolResponse is the response of a tool exchange (an Exchange named "tool:…"): what the
// sandboxed tool reported.
type ToolResponse struct {
	Tool     string `json:"tool"`
	Target   string `json:"target"`
	Output   string `json:"output"`
	ExitCode *int   `json:"exit_code"`
	Evidence string `json:"evidence"`
}

// Result is the call's outcome for a reader: its evidence without the "tool:target → "
// it repeats (a summary already names both), else its output.
func (r ToolResponse) Result() string {
	if r.Evidence == "" {
		return r.Output
	}
	if _, after, ok := strings.Cut(r.Evidence, " → "); ok {
		return after
	}
	return r.Evidence
}
