package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/internal/cli"
)

const mcpFlagHelp = "offer R3 the tools of an MCP server: `NAME=COMMAND ARGS…` (stdio, run in the tools' sandbox) or NAME=URL (Streamable HTTP); repeatable, beside the config file's mcp_servers"

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
		var flags mcp.ServerFlags
		fs := c.Flags()
		fs.Var(&flags, "mcp", mcpFlagHelp)
		configPath := fs.String("config", "", "configuration `FILE` whose mcp_servers to list")
		workdir := fs.String("workdir", ".", "the work `DIR` the servers are started in")
		asJSON := fs.Bool("json", false, "print the tool list as JSON, as the trace header records it")
		noSandbox := fs.Bool("no-sandbox", false, "start stdio servers UNCONFINED")
		c.RunE = func(c *cobra.Command, _ []string) error {
			servers, err := mcp.ConfigServers(*configPath, flags)
			if err != nil {
				return cli.Fail(exitUsage, err)
			}
			if len(servers) == 0 {
				return cli.Usagef("no MCP server: give --mcp NAME=COMMAND ARGS… or a --config file with mcp_servers")
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
	if tb.WriteListing(io.out) {
		return cli.Exit(exitFail)
	}
	return nil
}
