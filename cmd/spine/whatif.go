package main

import (
	"context"
	"fmt"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "what-if [flags] TRACE|DIR...",
			Short: "re-decide every recorded cycle of traces with edited rules and show where decisions change",
		}
		fs := c.Flags()
		rulesPath := fs.String("rules", "", "the edited rule `FILE` to decide with (required)")
		all := fs.Bool("all", false, "list every decision, not only the changed ones")
		opts := &whatIfFlags{
			rulesPath: rulesPath,
			all:       all,
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return exitStatus(runWhatIf(c.Context(), io, fs, opts))
		}
		return c
	})
}

// whatIfFlags are spine what-if's flags.
type whatIfFlags struct {
	rulesPath *string
	all       *bool
}

func runWhatIf(ctx context.Context, io stdio, fs *pflag.FlagSet, opts *whatIfFlags) int {
	rulesPath, all := opts.rulesPath, opts.all
	paths, err := traceArgs(fs.Args())
	if err != nil {
		fmt.Fprintf(io.err, "spine what-if: %v\n", err)
		return exitUsage
	}
	return whatIfTraces(io, *rulesPath, paths, *all)
}

// whatIfTraces re-decides each trace with the rule file at rulesPath and prints the
// changed decisions. It calls no effector and writes no trace; `spine replay --what-if`
// comes here too.
func whatIfTraces(io stdio, rulesPath string, paths []string, all bool) int {
	if rulesPath == "" {
		fmt.Fprintln(io.err, "spine what-if: --rules EDITED.yaml is required")
		return exitUsage
	}
	edited, err := engine.LoadRulesFile(rulesPath)
	if err != nil {
		fmt.Fprintf(io.err, "spine what-if: %v\n", err)
		return exitFail
	}
	code, changed, traces := exitOK, 0, 0
	for _, p := range paths {
		rec, err := replay.ReadRecording(p)
		if err != nil {
			fmt.Fprintf(io.out, "%s: %v\n", p, err)
			code = exitFail
			continue
		}
		res, err := analysis.WhatIf(rec, edited)
		if err != nil {
			fmt.Fprintf(io.out, "%s: %v\n", p, err)
			code = exitFail
			continue
		}
		if err := res.WriteText(io.out, all); err != nil {
			fmt.Fprintf(io.err, "spine what-if: %v\n", err)
			return exitFail
		}
		if n := len(res.Changes()); n > 0 {
			changed += n
			traces++
		}
	}
	if len(paths) > 1 {
		fmt.Fprintf(io.out, "%s: %s changed in %s\n", plural(len(paths), "trace"), plural(changed, "decision"), plural(traces, "trace"))
	}
	return code
}
