package main

import (
	"github.com/spf13/cobra"

	"github.com/agentspine/spine/fleet/fleettext"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/termtext"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		var (
			nf     natsFlags
			asJSON bool
		)
		c := &cobra.Command{
			Use:   "status [ID] [--json] [flags]",
			Short: "show the fleet's tasks (queued, running, finished, with outcomes), or one task's attempts",
			Args:  cobra.MaximumNArgs(1),
			RunE: func(c *cobra.Command, args []string) error {
				cl, err := nf.connect(c.Context(), "spine status")
				if err != nil {
					return err
				}
				defer cl.Close()
				sts, err := cl.Statuses(c.Context(), args)
				if err != nil {
					return err
				}
				if asJSON {
					return cli.JSONLines(io.rawOut, sts...)
				}
				if len(args) == 1 {
					fleettext.Status(io.out, sts[0])
					return nil
				}
				fleettext.Statuses(io.out, sts)
				if rep, ok, err := cl.LatestReport(c.Context()); err != nil {
					return err
				} else if ok {
					termtext.Printf(io.out, "%s", rep.Line())
				}
				return nil
			},
		}
		nf.add(c.Flags())
		c.Flags().BoolVar(&asJSON, "json", false, "one JSON status per line")
		return c
	})
}
