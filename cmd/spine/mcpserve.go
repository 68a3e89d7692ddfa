package main

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/mcp"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/mcpserve"
)

// `spine mcp serve` offers the spine's own verbs to another agent (an IDE's) as MCP tools
// on stdin and stdout; mcpserve owns the tools.

func init() {
	addCommand("mcp", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "serve [--config FILE] [--mcp NAME=CMD|URL]…",
			Short: "serve the spine's verbs as MCP tools on stdio: check and analyse rules, replay, what-if, loss table, timeline; run a task when a model is configured",
			Args:  cobra.NoArgs,
		}
		var ep endpointFlags
		var flags mcp.ServerFlags
		fs := c.Flags()
		ep.declare(fs, endpointHelp{config: "model configuration `FILE`: with a model configured (here or in the environment) run_task is offered, with the file's mcp_servers"})
		fs.Var(&flags, "mcp", "offer R3 the tools of an MCP server in the tasks run_task runs: `NAME=COMMAND ARGS…` or NAME=URL; repeatable")
		dir := fs.String("dir", ".", "the `DIR` relative paths in the tools' arguments are read from")
		noSandbox := fs.Bool("no-sandbox", false, "run_task runs R3's tools UNCONFINED")
		c.RunE = func(c *cobra.Command, _ []string) error {
			abs, err := filepath.Abs(*dir)
			if err != nil {
				return cli.Fail(exitUsage, err)
			}
			o := mcpserve.Options{Dir: abs, Version: version}
			cfg, err := ep.load(llm.Overrides{})
			switch {
			case errors.Is(err, llm.ErrNoEndpoint):
				if len(flags) > 0 {
					return cli.Usagef("--mcp is for the tasks run_task runs, and no model is configured (give --config FILE or the environment's settings)")
				}
				fmt.Fprintln(io.err, "spine mcp serve: no model is configured, so run_task is not offered")
			case err != nil:
				return cli.Fail(exitUsage, err)
			default:
				servers, err := mcp.ConfigServers(ep.config, flags)
				if err != nil {
					return cli.Fail(exitUsage, err)
				}
				o.Run = &mcpserve.RunOptions{LLM: cfg, ConfigPath: ep.config, MCPServers: servers, NoSandbox: *noSandbox}
			}
			// MCP's bytes go over stdin and stdout as they are, never the text streams' escaping.
			return mcpserve.Serve(c.Context(), o, mcpserve.StreamTransport(io.in, io.rawOut))
		}
		return c
	})
}
