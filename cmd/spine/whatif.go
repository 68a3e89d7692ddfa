package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/engine"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		var rulesPath string
		var all bool
		c := &cobra.Command{
			Use:   "what-if [flags] TRACE|DIR...",
			Short: "re-decide every recorded cycle of traces with edited rules and show where decisions change",
			RunE: func(c *cobra.Command, args []string) error {
				paths, err := traceArgs(args)
				if err != nil {
					return err
				}
				return whatIfTraces(io, rulesPath, paths, all)
			},
		}
		c.Flags().StringVar(&rulesPath, "rules", "", "the edited rule `FILE` to decide with (required)")
		c.Flags().BoolVar(&all, "all", false, "list every decision, not only the changed ones")
		return c
	})
}

// whatIfTraces re-decides each trace with the rule file at rulesPath and prints the
// changed decisions; a trace that cannot be re-decided is said in its place and the
// others still are (exit 1). It calls no effector and writes no trace; `spine replay
// --what-if` comes here too.
func whatIfTraces(io stdio, rulesPath string, paths []string, all bool) error {
	if rulesPath == "" {
		return cli.Fail(exitUsage, errors.New("--rules EDITED.yaml is required"))
	}
	edited, err := engine.LoadRulesFile(rulesPath)
	if err != nil {
		return cli.FileError(err)
	}
	code, changed, traces := exitOK, 0, 0
	for _, p := range paths {
		res, err := analysis.WhatIfFile(p, edited)
		if err != nil {
			// An input error, on stderr, said once: the reader's errors name the file.
			fmt.Fprintf(io.err, "spine what-if: %v\n", cli.Named(p, cli.FileError(err)))
			code = exitFail
			continue
		}
		if err := res.WriteText(io.out, all); err != nil {
			return err
		}
		if n := len(res.Changes()); n > 0 {
			changed += n
			traces++
		}
	}
	if len(paths) > 1 {
		fmt.Fprintf(io.out, "%s: %s changed in %s\n", textview.Plural(len(paths), "trace"), textview.Plural(changed, "decision"), textview.Plural(traces, "trace"))
	}
	return cli.Exit(code)
}
