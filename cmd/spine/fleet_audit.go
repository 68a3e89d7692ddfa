package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/fleet"
	"github.com/agentspine/spine/fleet/fleettext"
	"github.com/agentspine/spine/internal/cli"
)

// auditFollowFlags are spine audit's fleet flags: --follow runs the Auditor over the
// fleet's runs live instead of over trace files.
type auditFollowFlags struct {
	on, fromStart bool
	reportEvery   time.Duration
	untilRuns     int
	nats          natsFlags
}

func addAuditFollowFlags(fs *pflag.FlagSet) *auditFollowFlags {
	f := &auditFollowFlags{}
	fs.BoolVar(&f.on, "follow", false, "run the Auditor over the fleet's runs live, from the bus stream of its NATS server, until interrupted (spine audit query asks about finished runs)")
	fs.BoolVar(&f.fromStart, "from-start", false, "with --follow: begin at the bus stream's first message instead of now")
	fs.IntVar(&f.untilRuns, "until-runs", 0, "with --follow: stop once this many runs have ended (a batch's size); 0 follows until interrupted")
	fs.DurationVar(&f.reportEvery, "report-every", 0, "with --follow: publish a report of the fleet (tasks, findings, role drift) this often; spine status shows the latest")
	f.nats.add(fs)
	return f
}

// runAuditFollow prints each finding of each run as the fleet's Auditor makes it, and a
// line when a run ends; with --json, one FollowEvent a line.
func runAuditFollow(ctx context.Context, io stdio, f *auditFollowFlags, cfg audit.Config, asJSON bool, args []string) error {
	if len(args) > 0 {
		return cli.Usagef("--follow reads the fleet's bus, not trace files (%s)", args[0])
	}
	if err := cfg.Validate(); err != nil {
		return cli.Usagef("%v", err)
	}
	if f.untilRuns < 0 {
		return cli.Usagef("--until-runs %d: expected a count of runs, 0 or more", f.untilRuns)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	ended := 0
	cl, err := f.nats.connect(ctx, "spine audit --follow")
	if err != nil {
		return err
	}
	defer cl.Close()
	fmt.Fprintf(io.err, "spine audit: following the runs on %s; interrupt to stop\n", cl.URL())
	show := &fleettext.Follower{Text: io.out, Raw: io.rawOut, Err: io.err, JSON: asJSON}
	if f.reportEvery > 0 {
		go cl.ReportEvery(ctx, f.reportEvery, fleet.DefaultDrift, show.Report)
	}
	return cl.FollowAudit(ctx, cfg, f.fromStart, func(e fleet.FollowEvent) {
		show.Event(e)
		if e.Ended { // the follower's events come one at a time
			if ended++; ended == f.untilRuns {
				stop()
			}
		}
	})
}
