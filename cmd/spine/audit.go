package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/report/textview"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "audit [flags] TRACE|DIR...",
			Short: "verify recorded traces' hash chains, run the Auditor (R6) over them and print its findings",
		}
		fs := c.Flags()
		asJSON := fs.Bool("json", false, "print one AuditReport per line, with a \"trace\" field naming its trace")
		def := audit.DefaultConfig()
		cfg := def
		fs.IntVar(&cfg.ThrashingRun, "thrashing-run", def.ThrashingRun, "`N` consecutive break_symmetry directives of a task, D not decreasing, that make ggs_thrashing")
		fs.IntVar(&cfg.StallRun, "stall-run", def.StallRun, "`N` consecutive PlanDirectives of a task, L not decreasing, that make replanning_without_improvement")
		fs.IntVar(&cfg.MaxCorrections, "max-corrections", def.MaxCorrections, "R4a's retry budget `N` per subtask; more is excessive_retries")
		fs.IntVar(&cfg.ReplanCap, "replan-cap", def.ReplanCap, "`N` PlanDirectives a task may receive, more is budget_overrun; 0 (seed 000, the shipped rules' replan_cap) caps none")
		fs.Float64Var(&cfg.Theta, "theta", def.Theta, "GGS's θ: a PlanDirective issued at Ω ≥ `θ` is budget_overrun")
		fs.Int64Var(&cfg.TimeBudgetMS, "time-budget-ms", def.TimeBudgetMS, "a task's time budget in `MS` milliseconds; more elapsed is budget_overrun")
		verifyKey := addVerifyKey(fs)
		follow := addAuditFollowFlags(fs)
		c.RunE = func(c *cobra.Command, args []string) error {
			if follow.on {
				return runAuditFollow(c.Context(), io, follow, cfg, *asJSON, args)
			}
			return runAudit(c.Context(), io, cfg, *asJSON, *verifyKey, args)
		}
		return c
	})
}

// runAudit audits each trace in turn: what is wrong with one trace is said on stderr
// beside its findings and the others are still audited; the status is 1 when a trace
// failed or a finding is an error.
func runAudit(ctx context.Context, io stdio, cfg audit.Config, asJSON bool, verifyKey string, args []string) error {
	if err := cfg.Validate(); err != nil {
		return cli.Fail(exitUsage, err)
	}
	paths, err := traceArgs(args)
	if err != nil {
		return err
	}
	ring, err := loadVerifyKey(verifyKey)
	if err != nil {
		return cli.FileError(err)
	}
	var tally textview.AuditTally
	for _, p := range paths {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A trace that cannot be read to its end is reported, and the messages before the
		// bad line are audited; one the trusted keys do not vouch for is not audited.
		res, err := audit.AuditFile(cfg, p, ring)
		tally.Audited(io.out, io.rawOut, io.err, "spine audit", p, res, cli.FileError(err), asJSON)
	}
	if !asJSON {
		fmt.Fprintln(io.out, tally.Summary())
	}
	if tally.Failed || tally.Errors > 0 {
		return cli.Exit(exitFail)
	}
	return nil
}
