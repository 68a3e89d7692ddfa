package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/internal/termtext"
)

// mcpFlags is the repeatable --mcp NAME=COMMAND ARGS… | NAME=URL.
type mcpFlags []mcp.Server

func (m *mcpFlags) String() string {
	var names []string
	for _, s := range *m {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// Type names the value in --help.
func (m *mcpFlags) Type() string { return "NAME=CMD|URL" }

func (m *mcpFlags) Set(v string) error {
	s, err := mcp.ParseFlag(v)
	if err != nil {
		return err
	}
	*m = append(*m, s)
	return nil
}

const mcpFlagHelp = "offer R3 the tools of an MCP server: `NAME=COMMAND ARGS…` (stdio, run in the tools' sandbox) or NAME=URL (Streamable HTTP); repeatable, beside the config file's mcp_servers"

// mcpServers are the config file's servers, then the flags' (a name in both is an error).
func mcpServers(configPath string, flags mcpFlags) ([]mcp.Server, error) {
	var servers []mcp.Server
	if configPath != "" {
		data, err := os.ReadFile(configPath)
		if err != nil {
			return nil, err
		}
		if servers, err = mcp.ServersFromYAML(configPath, data); err != nil {
			return nil, err
		}
	}
	servers = append(servers, flags...)
	return servers, mcp.CheckAll(servers)
}

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		return &cobra.Command{Use: "mcp", Short: "MCP servers: list the tools R3 would be offered"}
	})
	addCommand("mcp", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "ls [--mcp NAME=CMD|URL]… [--config FILE]",
			Short: "start the MCP servers, in the sandbox, and list their tools with their schemas",
			Args:  cobra.NoArgs,
		}
		var flags mcpFlags
		fs := c.Flags()
		fs.Var(&flags, "mcp", mcpFlagHelp)
		configPath := fs.String("config", "", "configuration `FILE` whose mcp_servers to list")
		workdir := fs.String("workdir", ".", "the work `DIR` the servers are started in")
		asJSON := fs.Bool("json", false, "print the tool list as JSON, as the trace header records it")
		noSandbox := fs.Bool("no-sandbox", false, "start stdio servers UNCONFINED")
		c.RunE = func(c *cobra.Command, _ []string) error {
			servers, err := mcpServers(*configPath, flags)
			if err != nil {
				return failWith(exitUsage, err)
			}
			if len(servers) == 0 {
				return usageErrorf("no MCP server: give --mcp NAME=COMMAND ARGS… or a --config file with mcp_servers")
			}
			return mcpList(c.Context(), io, servers, *workdir, *noSandbox, *asJSON)
		}
		return c
	})
}

func mcpList(ctx context.Context, io stdio, servers []mcp.Server, workdir string, noSandbox, asJSON bool) error {
	tb, done, err := mcp.OpenListing(ctx, servers, workdir, noSandbox)
	if err != nil {
		return err
	}
	defer done()
	if asJSON {
		fmt.Fprintln(io.rawOut, tb.Describe())
		return nil
	}
	failed := false
	for _, st := range tb.Status() {
		if st.Unavailable != "" {
			failed = true
			fmt.Fprintf(io.out, "%s (%s): unavailable: %s\n", st.Name, st.Transport, termtext.Line(st.Unavailable))
			continue
		}
		fmt.Fprintf(io.out, "%s (%s)\n", st.Name, st.Transport)
		for _, t := range tb.Tools() {
			if t.Server != st.Name {
				continue
			}
			if t.Refused != "" {
				fmt.Fprintf(io.out, "  refused %s: %s\n", termtext.Line(t.Remote), termtext.Line(t.Refused))
				continue
			}
			var schema any
			_ = json.Unmarshal(t.Schema, &schema)
			compact, _ := json.Marshal(schema)
			fmt.Fprintf(io.out, "  %s\n    %s\n    schema: %s\n", t.Name, termtext.Line(t.Description), termtext.Line(string(compact)))
		}
	}
	if failed {
		return exitStatus(exitFail)
	}
	return nil
}
