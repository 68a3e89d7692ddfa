package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/trace"
)

func init() {
	addCommand("trace", func(io stdio) *cobra.Command {
		var (
			nf      natsFlags
			attempt int
			out     string
			all     bool
		)
		c := &cobra.Command{
			Use:   "get ID|--all -o DIR [--attempt N] [-o FILE] [flags]",
			Short: "fetch a fleet task's trace (its accepted attempt's, or --attempt N's) from the fleet",
			Long: `Fetch the trace a worker stored for a task: the accepted attempt's, or --attempt N's.
It is the trace file as the worker wrote it, byte for byte: spine replay --check and
spine trace show read it as any other. -o writes it to a new file (never overwritten).
--all -o DIR writes every finished task's accepted trace into DIR as ID.trace.jsonl.`,
			RunE: func(c *cobra.Command, args []string) error {
				switch {
				case attempt < 0:
					return cli.Usagef("--attempt %d: expected 1 or more", attempt)
				case all && (len(args) != 0 || out == "" || attempt != 0):
					return cli.Usagef("--all takes no ID and no --attempt, and needs -o DIR")
				case !all && len(args) != 1:
					return cli.Usagef("expected one task ID (or --all -o DIR)")
				}
				cl, err := nf.connect(c.Context(), "spine trace get")
				if err != nil {
					return err
				}
				defer cl.Close()
				if all {
					n, tasks, err := cl.SaveTraces(c.Context(), out)
					if err == nil {
						fmt.Fprintf(io.err, "%d trace(s) of %d task(s) → %s\n", n, tasks, out)
					}
					return err
				}
				b, a, err := cl.Trace(c.Context(), args[0], attempt)
				if err != nil {
					return err
				}
				if out == "" {
					_, err = io.rawOut.Write(b)
					return err
				}
				if err := trace.WriteNewFile(out, b); err != nil {
					return err
				}
				termtext.Printf(io.err, "%s: attempt %d (%s, run %s) → %s", args[0], a.N, a.State, a.RunID, out)
				return nil
			},
		}
		nf.add(c.Flags())
		c.Flags().IntVar(&attempt, "attempt", 0, "the attempt `N` (default: the accepted one)")
		c.Flags().StringVarP(&out, "output", "o", "", "write the trace to `FILE` instead of stdout (with --all: a directory)")
		c.Flags().BoolVar(&all, "all", false, "every finished task's accepted trace, into the directory -o names")
		return c
	})
}
