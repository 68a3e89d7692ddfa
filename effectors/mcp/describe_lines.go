package mcp

import (
	"fmt"
	"strings"
)

// TimelineLines shows the MCP tool list a trace header records (meta mcp_tools) for
// `spine trace show`: one line
// per server with the tools it offered and refused; with all, one more per offered tool
// with the description R3 was given. A list that does not decode is said, not hidden.
func TimelineLines(meta string, all bool) []string {
	if meta == "" {
		return nil
	}
	d, err := ParseDescription(meta)
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
		line := fmt.Sprintf("mcp       server %s (%s) · offered %s", s.Name, s.Transport, orNone(offered))
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

func orNone(names []string) string {
	if len(names) == 0 {
		return "no tool"
	}
	return strings.Join(names, ", ")
}
