package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/standin/scripted"
	"github.com/agentspine/spine/taskrun"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "play [flags] SCENARIO",
			Short: "run a rule set against a designed scenario (no model) and write its trace",
			Args:  cli.ExactArgs(1, "one scenario file"),
		}
		fs := c.Flags()
		rulesPath := fs.String("rules", "", "rule `FILE` to use instead of the one the scenario names")
		tracePath := fs.String("trace", "", "trace `FILE` to create (default: <scenario name>.trace.jsonl, never overwritten)")
		quiet := fs.Bool("quiet", false, "print only the result, not the run as it goes")
		all := fs.Bool("all", false, "show the rule timeline (every evaluation and state change) instead of the pipeline")
		memDir := fs.String("memory", "", "GGS scenarios: let GGS write its Megrams to the LevelDB memory store in `DIR`")
		c.RunE = func(c *cobra.Command, args []string) error {
			d, err := scripted.ReadDesigned(args[0])
			if err != nil {
				return cli.FileError(err)
			}
			rs, err := d.LoadRules(*rulesPath, filepath.Dir(args[0]))
			if err != nil {
				return err
			}
			if *memDir != "" && d.Reports == nil {
				return cli.Usagef("--memory applies to GGS scenarios only")
			}
			pc := scripted.PlayConfig{TracePath: *tracePath, MemoryDir: *memDir}
			return playDesigned(c.Context(), io, d, rs, pc, *quiet, *all)
		}
		return c
	})
}

// playDesigned plays d and shows it: a signal scenario as the rule timeline, a GGS one
// as the pipeline of messages (or the timeline with all).
func playDesigned(ctx context.Context, io stdio, d *scripted.Designed, rs *ruleset.RuleSet, pc scripted.PlayConfig, quiet, all bool) error {
	switch {
	case quiet:
	case d.Signals != nil || all:
		pc.Events = append(pc.Events, textview.NewTimeline(io.out, all).Written())
	default:
		p, err := ggs.ParamsFrom(rs)
		if err != nil {
			return err
		}
		pc.OnMessage = (&textview.Pipeline{W: io.out, Epsilon: p.Epsilon}).Message
	}
	out, err := scripted.PlayDesigned(ctx, d, rs, pc)
	if out.TracePath == "" {
		return err
	}
	out.Summary(io.out, d.Name)
	if o := out.OutOfRounds; o != nil && err == nil {
		termtext.Printf(io.out, "out of rounds: %s: they did not end the task where the scenario's own rules do; the run ends there, in the FinalResult the rules decide for a failed round (exit status 3)", o)
		return cli.Exit(exitOutOfRounds)
	}
	return err
}

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "demo [flags]",
			Short: "run a shipped multi-round task end to end with no API key and no network (--pipeline: R1–R4b, real tools, memory, Auditor)",
		}
		flags := c.Flags()
		tracePath := flags.String("trace", "", "trace `FILE` to create (default: spine-demo.trace.jsonl, never overwritten)")
		quiet := flags.Bool("quiet", false, "print only the result")
		all := flags.Bool("all", false, "show the rule timeline instead of the pipeline")
		pipeline := flags.Bool("pipeline", false, "run R1–R4b on a tiny project in a temporary work dir, with scripted replies for the roles and the real tools, memory and Auditor (default trace: "+pipelineDemoTrace+")")
		signKey := flags.String("sign-key", "", "with --pipeline: sign the trace with this ed25519 private key `FILE` (spine keygen)")
		c.RunE = func(c *cobra.Command, args []string) error {
			if *pipeline {
				return runDemoPipeline(c.Context(), io, *tracePath, *quiet, *all, *signKey)
			}
			if *signKey != "" {
				return cli.Usagef("--sign-key needs --pipeline (the scenario demo writes its trace without the run library)")
			}
			d, rs, err := scripted.Demo()
			if err != nil {
				return err
			}
			pc := scripted.PlayConfig{TracePath: *tracePath}
			if pc.TracePath == "" {
				pc.TracePath = taskrun.FreshPath("spine-demo.trace.jsonl")
			}
			fmt.Fprintf(io.out, "Task %q, played from a designed scenario (scripted R4b reports; no model is called).\n", d.Reports.Task.Intent)
			fmt.Fprintf(io.out, "GGS decides every round with the rules of rules/%s.\n\n", d.Rules)
			if err := playDesigned(c.Context(), io, d, rs, pc, *quiet, *all); err != nil {
				return err
			}
			fmt.Fprintf(io.out, "\nRead the trace:      spine trace show %s\n", pc.TracePath)
			fmt.Fprintf(io.out, "Replay and check it: spine replay --check %s\n", pc.TracePath)
			fmt.Fprintf(io.out, "Try other rules:     spine play --rules my-ggs.yaml fixtures/%s  (a copy of rules/ggs.yaml, edited)\n", scripted.DemoScenario)
			fmt.Fprintln(io.out, explainHint)
			return nil
		}
		return c
	})
}
