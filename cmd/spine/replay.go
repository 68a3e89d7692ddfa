package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/trace"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "replay [flags] TRACE|DIR...",
			Short: "re-run recorded traces from their recordings, calling no model, and check them",
		}
		fs := c.Flags()
		rulesPath := fs.String("rules", "", "replay with this rule `FILE` instead of the recorded one (the run may diverge)")
		check := fs.Bool("check", false, "compare the new trace with the recording; exit 1 at the first differing line")
		out := fs.String("out", "", "write the new trace to this `FILE` (one trace only)")
		jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "`N` traces replayed at once")
		verifyKey := addVerifyKey(fs)
		whatIf := fs.Bool("what-if", false, "with --rules: re-decide every recorded cycle with the edited rules and show the changed decisions; calls no effector")
		c.RunE = func(c *cobra.Command, args []string) error {
			paths, err := traceArgs(args)
			if err != nil {
				return err
			}
			if *whatIf {
				return whatIfTraces(io, *rulesPath, paths, false)
			}
			if *out != "" && len(paths) != 1 {
				return cli.Usagef("--out takes one trace")
			}
			o := replay.CheckOptions{Compare: *check}
			if o.Keys, err = loadVerifyKey(*verifyKey); err != nil {
				return cli.FileError(err)
			}
			if *rulesPath != "" {
				if o.Rules, err = engine.LoadRulesFile(*rulesPath); err != nil {
					return cli.FileError(err)
				}
			}
			results := replay.CheckAll(c.Context(), paths, max(*jobs, 1), o)
			code := exitOK
			for _, r := range results {
				textview.Replay(io.out, io.err, r)
				if !r.OK() {
					code = exitFail
				}
			}
			if len(results) > 1 {
				fmt.Fprintln(io.out, replay.Summary(results, *check))
			}
			if *out != "" && results[0].Replayed != nil {
				if err := trace.WriteNewFile(*out, results[0].Replayed); err != nil {
					return err
				}
				fmt.Fprintf(io.out, "new trace written to %s\n", *out)
			}
			return cli.Exit(code)
		}
		return c
	})
}
