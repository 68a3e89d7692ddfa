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
					enc := json.NewEncoder(io.rawOut)
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
					printLine(io.out, "%s", rep.Line())
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
		printLine(w, "%-22s %-8s %-16s %d attempt(s)  %s", st.ID, st.State, out, len(st.Attempts), oneLine(st.Text, 60))
	}
	printLine(w, "%d task(s): %d queued, %d running, %d finished", len(sts), counts[fleet.Queued], counts[fleet.Running], counts[fleet.Finished])
}

// showTaskStatus is a task with its attempts.
func showTaskStatus(w io.Writer, st fleet.Status) {
	printLine(w, "%s  %s  submitted %s", st.ID, st.State, st.SubmittedAt.Format(time.RFC3339))
	printLine(w, "  %s", oneLine(st.Text, 100))
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
		if a.Resumed != nil {
			line += fmt.Sprintf(", resumed from attempt %d's line %d", a.Resumed.Attempt, a.Resumed.Line)
		}
		printLine(w, "%s)", line)
		if a.Error != "" {
			printLine(w, "     did not start: %s", wholeLine(a.Error))
		}
	}
	if o := st.Outcome(); o != "" {
		printLine(w, "  outcome: %s", o)
	}
	if st.Final != nil && strings.TrimSpace(st.Final.Summary) != "" {
		printLine(w, "  summary: %s", wholeLine(st.Final.Summary))
	}
	if st.Error != "" {
		printLine(w, "  error: %s", wholeLine(st.Error))
	}
}

// wholeLine is a reason on one line, never cut: it says what to do at its end.
func wholeLine(s string) string { return oneLine(s, len(s)+1) }
