package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/fleet"
)

// auditFollowFlags are spine audit's fleet flags: --follow runs the Auditor over the
// fleet's runs live instead of over trace files.
type auditFollowFlags struct {
	on, fromStart bool
	nats          natsFlags
}

func addAuditFollowFlags(fs *pflag.FlagSet) *auditFollowFlags {
	f := &auditFollowFlags{}
	fs.BoolVar(&f.on, "follow", false, "run the Auditor over the fleet's runs live, from the bus stream of its NATS server, until interrupted")
	fs.BoolVar(&f.fromStart, "from-start", false, "with --follow: begin at the bus stream's first message instead of now")
	f.nats.add(fs)
	return f
}

// runAuditFollow prints each finding of each run as the fleet's Auditor makes it, and a
// line when a run ends; with --json, one FollowEvent a line.
func runAuditFollow(ctx context.Context, io stdio, f *auditFollowFlags, cfg audit.Config, asJSON bool, args []string) error {
	if len(args) > 0 {
		return usageErrorf("--follow reads the fleet's bus, not trace files (%s)", args[0])
	}
	if err := cfg.Validate(); err != nil {
		return usageErrorf("%v", err)
	}
	cl, err := f.nats.connect(ctx, "spine audit --follow")
	if err != nil {
		return err
	}
	defer cl.Close()
	enc := json.NewEncoder(io.out)
	enc.SetEscapeHTML(false)
	fmt.Fprintf(io.err, "spine audit: following the runs on %s; interrupt to stop\n", cl.URL())
	return cl.FollowAudit(ctx, cfg, f.fromStart, func(e fleet.FollowEvent) {
		switch {
		case asJSON:
			_ = enc.Encode(e)
		case e.Finding != nil:
			fmt.Fprintf(io.out, "%s: %s\n", e.Run, findingLine(*e.Finding))
		case e.Ended:
			fmt.Fprintf(io.out, "%s: ended (FinalResult), %s\n", e.Run, plural(e.Messages, "message"))
		}
	})
}
