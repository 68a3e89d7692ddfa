package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/runlog"
)

// `spine trace loss` reads GGS's rounds back out of a trace: the signals fact GGS's gate
// writes each round, the rule that fired on it and the directive R7 sent. It reads only;
// the numbers are the recorded ones, never recomputed.

func init() {
	addCommand("trace", func(io stdio) *cobra.Command {
		var asJSON bool
		c := &cobra.Command{
			Use:   "loss [flags] TRACE...",
			Short: "one row per GGS round of each trace: D, P, Ω, L, ∇L, directive, rule, blocked tools and targets",
			Args:  cli.MinimumArgs(1, "one or more trace files"),
			RunE: func(c *cobra.Command, args []string) error {
				return runTraceLoss(io, asJSON, args)
			},
		}
		c.Flags().BoolVar(&asJSON, "json", false, "print JSON instead of a table")
		return c
	})
}

// runTraceLoss lists each trace's rounds; a trace that cannot be read is said on stderr
// and the others are still listed (exit 1).
func runTraceLoss(io stdio, asJSON bool, paths []string) error {
	code := exitOK
	traces := []runlog.Loss{}
	for _, path := range paths {
		f, err := readTraceFile("loss", path, io.err)
		var lt *runlog.Loss
		if err == nil {
			lt, err = runlog.Rounds(path, f)
		}
		if err != nil {
			fmt.Fprintf(io.err, "spine trace loss: %s\n", linecap.BoundQuotes(err.Error()))
			code = exitFail
			continue
		}
		traces = append(traces, *lt)
	}
	if asJSON {
		if err := textview.LossJSON(io.rawOut, traces); err != nil {
			return err
		}
	} else {
		textview.LossTables(io.out, traces)
	}
	return cli.Exit(code)
}
