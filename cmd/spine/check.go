package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/internal/cli"
	tracereport "github.com/agentspine/spine/report"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "check [flags] FILE...",
			Short: "check rule files: every load error, unused params, rules that never fire; --analyze for gaps and overlaps",
		}
		fs := c.Flags()
		var f analysis.FileCheck
		var strict bool
		fs.BoolVar(&f.Analyze, "analyze", false, "partition the signal space and report gaps, overlaps and the regions each rule wins")
		fs.BoolVar(&strict, "strict", false, "exit 1 on warnings (and, with --analyze, on gaps, overlaps and undecided regions)")
		fs.StringVar(&f.Domains, "domains", "", "signal domains `FILE` (default: the rule file's domains: key, else <rulefile>.domains.yaml next to it)")
		fs.StringVar(&f.Expect, "expect", "", "decision table `FILE` the rules must reproduce (implies --analyze)")
		host := fs.String("host-params", "", "comma-separated `PARAMS` the host program reads, not reported as unused")
		htmlOut := fs.String("html", "", "with --analyze, also write the rule set's decision map to `FILE` (an HTML page)")
		axes := fs.String("axes", "", "the decision map's two axes, `X,Y` fields (default for ggs: seed 000's cascade)")
		fs.IntVar(&f.Budget, "budget", analysis.DefaultBudget, "`STEPS` the never-fires analysis may take before it stops and says which rules it did not check; 0 for no bound")
		c.RunE = func(c *cobra.Command, args []string) error {
			switch {
			case len(args) == 0:
				return cli.Usagef("expected rule files")
			case (f.Domains != "" || f.Expect != "") && len(args) > 1:
				return cli.Usagef("--domains and --expect take one rule file")
			case f.Budget < 0:
				return cli.Usagef("--budget %d: want a number of steps ≥ 0 (0: no bound)", f.Budget)
			}
			f.Analyze = f.Analyze || f.Expect != ""
			f.AddHostParams(*host)
			// The params a built-in host reads from the rule set it is given need no rule.
			f.HostParamsOf = func(name string) []string { return map[string][]string{"ggs": ggs.HostParams}[name] }
			if *htmlOut != "" {
				if err := tracereport.WriteMapFile(*htmlOut, args[0], f, *axes); err != nil {
					return cli.FileError(err)
				}
			}
			code := exitOK
			for _, path := range args {
				ok, err := analysis.WriteFileCheck(io.out, io.err, path, f, strict)
				if err != nil {
					// Not read as a rule file at all; the others are still checked.
					fmt.Fprintf(io.err, "spine check: %v\n", err)
					code = exitFail
					continue
				}
				if !ok {
					code = exitFail
				}
			}
			return cli.Exit(code) // the findings above are the result
		}
		return c
	})
}
