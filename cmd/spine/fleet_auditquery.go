package main

import (
	"time"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/fleet/fleettext"
	"github.com/agentspine/spine/internal/cli"
)

const auditQueryLong = `Ask the fleet's Auditor about finished runs: a run (--run, a run or task id), a role
(--role R3) and a time window (--since, --until: RFC 3339 times, or durations back from
now such as 2h). For each matching run: its outcome, each role's model calls, tokens,
latency, corrections received and failed results, and the findings its Auditor made.
Then the roles that drifted over the matched runs: a role whose corrections, failure
rate, tokens or latency over its last --window runs moved more than --threshold
standard deviations (and --min-shift of the mean) from its earlier runs.

Exit status: 0 when no role drifted and no finding is an error, 1 otherwise.`

func init() {
	addCommand("audit", func(io stdio) *cobra.Command {
		var (
			nf           natsFlags
			q            fleet.AuditQuery
			since, until string
			dc           = fleet.DefaultDrift
			asJSON       bool
		)
		c := &cobra.Command{
			Use:   "query [--run ID] [--role ROLE] [--since T] [--until T] [flags]",
			Short: "ask the fleet's Auditor about finished runs: by run, role and time window, with role drift",
			Long:  auditQueryLong,
			Args:  cobra.NoArgs,
			RunE: func(c *cobra.Command, args []string) error {
				now := time.Now()
				var err error
				if q.Since, err = fleet.ParseWhen(since, now); err != nil {
					return cli.Usagef("--since %v", err)
				}
				if q.Until, err = fleet.ParseWhen(until, now); err != nil {
					return cli.Usagef("--until %v", err)
				}
				if err := dc.Check(); err != nil {
					return cli.Usagef("%v", err)
				}
				cl, err := nf.connect(c.Context(), "spine audit query")
				if err != nil {
					return err
				}
				defer cl.Close()
				ans, err := cl.QueryAudit(c.Context(), q, dc)
				if err != nil {
					return err
				}
				if err := cli.Show(io.rawOut, asJSON, ans, func() { fleettext.AuditAnswer(io.out, ans) }); err != nil {
					return err
				}
				if ans.Failed() {
					return cli.Exit(exitFail)
				}
				return nil
			},
		}
		fs := c.Flags()
		nf.add(fs)
		fs.StringVar(&q.Run, "run", "", "a run id, or a task id for its accepted run")
		fs.StringVar(&q.Role, "role", "", "only this role's figures, and the runs it took part in (R1 … R4b, R7)")
		fs.StringVar(&since, "since", "", "runs that ended at or after `T` (RFC 3339, or a duration back from now: 2h)")
		fs.StringVar(&until, "until", "", "runs that ended at or before `T`")
		fs.IntVar(&dc.Window, "window", dc.Window, "drift: the last `N` runs of a role …")
		fs.IntVar(&dc.MinHistory, "history", dc.MinHistory, "drift: … against at least `N` earlier runs")
		fs.Float64Var(&dc.Threshold, "threshold", dc.Threshold, "drift: standard deviations of the history the window's mean must move")
		fs.Float64Var(&dc.MinShift, "min-shift", dc.MinShift, "drift: and the fraction of the history's mean it must move")
		fs.BoolVar(&asJSON, "json", false, "the answer as one JSON object")
		return c
	})
}
