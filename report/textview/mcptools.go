package textview

import (
	"fmt"
	"strings"

	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// MCPToolLines shows the MCP tool list a trace header records (runlog.MCPTools) for
// `spine trace show`: one line per server with the tools it offered and refused; with
// all, one more per offered tool with the description R3 was given. A list that does
// not decode is said, not hidden.
func MCPToolLines(h trace.Header, all bool) []string {
	d, recorded, err := runlog.MCPTools(h)
	if !recorded {
		return nil
	}
	if err != nil {
		return []string{"mcp       " + err.Error()}
	}
	var out []string
	for _, s := range d.Servers {
		if s.Unavailable != "" {
			out = append(out, fmt.Sprintf("mcp       server %s (%s) unavailable: %s", s.Name, s.Transport, s.Unavailable))
			continue
		}
		var offered, refused []string
		var described []string
		for _, t := range d.Tools {
			switch {
			case t.Server != s.Name:
			case t.Refused != "":
				refused = append(refused, fmt.Sprintf("%s (%s)", t.Remote, t.Refused))
			default:
				offered = append(offered, t.Name)
				described = append(described, fmt.Sprintf("mcp         %s: %s", t.Name, t.Description))
			}
		}
		line := fmt.Sprintf("mcp       server %s (%s) · offered %s", s.Name, s.Transport, orNoTool(offered))
		if len(refused) > 0 {
			line += " · refused " + strings.Join(refused, ", ")
		}
		out = append(out, line)
		if all {
			out = append(out, described...)
		}
	}
	return out
}

func orNoTool(names []string) string {
	if len(names) == 0 {
		return "no tool"
	}
	return strings.Join(names, ", ")
}
