package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/fleet"
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
				var sts []fleet.Status
				if len(args) == 1 {
					st, err := cl.Status(c.Context(), args[0])
					if err != nil {
						return err
					}
					sts = []fleet.Status{st}
				} else if sts, err = cl.List(c.Context()); err != nil {
					return err
				}
				if asJSON {
					enc := json.NewEncoder(io.out)
					enc.SetEscapeHTML(false)
					for _, st := range sts {
						if err := enc.Encode(st); err != nil {
							return err
						}
					}
					return nil
				}
				if len(args) == 1 {
					showTaskStatus(io.out, sts[0])
					return nil
				}
				showFleetStatus(io.out, sts)
				if rep, ok, err := cl.LatestReport(c.Context()); err != nil {
					return err
				} else if ok {
					fmt.Fprintln(io.out, rep.Line())
				}
				return nil
			},
		}
		nf.add(c.Flags())
		c.Flags().BoolVar(&asJSON, "json", false, "one JSON status per line")
		return c
	})
}

// showFleetStatus is one line a task, then the counts.
func showFleetStatus(w io.Writer, sts []fleet.Status) {
	counts := map[string]int{}
	for _, st := range sts {
		counts[st.State]++
		out := st.Outcome()
		if out == "" {
			out = "-"
		}
		fmt.Fprintf(w, "%-22s %-8s %-16s %d attempt(s)  %s\n", st.ID, st.State, out, len(st.Attempts), oneLine(st.Text, 60))
	}
	fmt.Fprintf(w, "%d task(s): %d queued, %d running, %d finished\n", len(sts), counts[fleet.Queued], counts[fleet.Running], counts[fleet.Finished])
}

// showTaskStatus is a task with its attempts.
func showTaskStatus(w io.Writer, st fleet.Status) {
	fmt.Fprintf(w, "%s  %s  submitted %s\n  %s\n", st.ID, st.State, st.SubmittedAt.Format(time.RFC3339), oneLine(st.Text, 100))
	for _, a := range st.Attempts {
		mark := " "
		if a.N == st.Accepted {
			mark = "*"
		}
		line := fmt.Sprintf(" %s attempt %d on %s: %s (run %s", mark, a.N, a.Worker, a.State, a.RunID)
		if a.Trace != "" {
			line += ", trace stored"
		}
		if a.SignedBy != "" {
			line += ", signed by " + a.SignedBy
		}
		fmt.Fprintln(w, line+")")
		if a.Error != "" {
			fmt.Fprintf(w, "     did not start: %s\n", oneLine(a.Error, 100))
		}
	}
	if o := st.Outcome(); o != "" {
		fmt.Fprintf(w, "  outcome: %s\n", o)
	}
	if st.Final != nil && strings.TrimSpace(st.Final.Summary) != "" {
		fmt.Fprintf(w, "  summary: %s\n", oneLine(st.Final.Summary, 100))
	}
	if st.Error != "" {
		fmt.Fprintf(w, "  error: %s\n", oneLine(st.Error, 100))
	}
}
