package taskrun

import (
	"context"
	"fmt"
	"os"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/effectors/roles"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/secrets"
)

// openMCP starts the configured MCP servers in the run's jail and returns R3's toolbox
// with their tools added; meta gains the tool list. A server that cannot start is a
// warning and offers no tool; the run goes on with the others.
func openMCP(ctx context.Context, servers []mcp.Server, box *sandbox.Sandbox, jail sandbox.Jail, sc *secrets.Scrubber, warn func(string), meta map[string]string) (*mcp.Toolbox, error) {
	starter, _ := jail.(sandbox.Starter)
	// The work dir is handed to the sandbox's uid before a server writes in it.
	if _, err := box.Isolation(); err != nil {
		return nil, fmt.Errorf("MCP servers: %w", err)
	}
	tb, err := mcp.Open(ctx, box, mcp.Options{Servers: servers, Starter: starter, Dir: box.Root(), Env: os.LookupEnv, Scrub: sc})
	if err != nil {
		return nil, err
	}
	for _, st := range tb.Status() {
		if st.Unavailable != "" {
			warn(fmt.Sprintf("MCP server %s is unavailable, its tools are not offered: %s", st.Name, st.Unavailable))
		}
	}
	meta[contract.MetaMCPTools] = tb.Describe()
	return tb, nil
}

// ToolTarget passes an MCP tool's target through the scrubbing wrapper.
func (t scrubTools) ToolTarget(name, args string) (string, bool) {
	if tt, ok := t.Toolbox.(roles.ToolTargets); ok {
		return tt.ToolTarget(name, args)
	}
	return "", false
}

var _ roles.ToolTargets = scrubTools{}
