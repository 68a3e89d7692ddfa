package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "check [flags] FILE...",
			Short: "check rule files: every load error, unused params, rules that never fire; --analyze for gaps and overlaps",
		}
		fs := c.Flags()
		var f checkFlags
		fs.BoolVar(&f.analyze, "analyze", false, "partition the signal space and report gaps, overlaps and the regions each rule wins")
		fs.BoolVar(&f.strict, "strict", false, "exit 1 on warnings (and, with --analyze, on gaps, overlaps and undecided regions)")
		fs.StringVar(&f.domains, "domains", "", "signal domains `FILE` (default: the rule file's domains: key, else <rulefile>.domains.yaml next to it)")
		fs.StringVar(&f.expect, "expect", "", "decision table `FILE` the rules must reproduce (implies --analyze)")
		host := fs.String("host-params", "", "comma-separated `PARAMS` the host program reads, not reported as unused")
		fs.IntVar(&f.budget, "budget", analysis.DefaultBudget, "`STEPS` the never-fires analysis may take before it stops and says which rules it did not check; 0 for no bound")
		opts := &checkOpts{
			f:    &f,
			host: host,
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return exitStatus(runCheck(c.Context(), io, fs, opts))
		}
		return c
	})
}

// checkOpts are spine check's flags.
type checkOpts struct {
	f    *checkFlags
	host *string
}

// hostParams are the params a built-in host reads from the rule set it is given, by rule
// set name: they need no rule to read them.
var hostParams = map[string][]string{"ggs": ggs.HostParams}

type checkFlags struct {
	analyze, strict bool
	domains, expect string
	hostParams      []string
	budget          int
}

func runCheck(ctx context.Context, io stdio, fs *pflag.FlagSet, opts *checkOpts) int {
	f, host := *opts.f, opts.host
	if fs.NArg() == 0 {
		fmt.Fprintln(io.err, "spine check: expected rule files")
		return exitUsage
	}
	if (f.domains != "" || f.expect != "") && fs.NArg() > 1 {
		fmt.Fprintln(io.err, "spine check: --domains and --expect take one rule file")
		return exitUsage
	}
	if f.expect != "" {
		f.analyze = true
	}
	if f.budget < 0 {
		fmt.Fprintf(io.err, "spine check: --budget %d: want a number of steps ≥ 0 (0: no bound)\n", f.budget)
		return exitUsage
	}
	for _, p := range strings.Split(*host, ",") {
		if p = strings.TrimSpace(p); p != "" {
			f.hostParams = append(f.hostParams, p)
		}
	}
	code := exitOK
	for _, path := range fs.Args() {
		code = max(code, checkFile(io, path, f))
	}
	return code
}

func checkFile(io stdio, path string, f checkFlags) int {
	rs, err := engine.LoadRulesFile(path)
	if err != nil {
		var les engine.LoadErrors
		if errors.As(err, &les) {
			for _, e := range les {
				fmt.Fprintln(io.out, e.Error())
			}
			fmt.Fprintf(io.out, "%s: %s\n", path, plural(len(les), "error"))
		} else {
			fmt.Fprintf(io.out, "%s: %v\n", path, err)
		}
		return exitFail
	}
	opt := analysis.Options{HostParams: append(append([]string(nil), f.hostParams...), hostParams[rs.Name()]...), Budget: f.budget}
	if f.budget == 0 {
		opt.Budget = -1 // no bound
	}
	// Domains: --domains, else the rule file's own domains: key, else a sidecar file.
	domainsPath := f.domains
	src, inFile := rs.DomainsSource()
	if domainsPath == "" && !inFile {
		domainsPath = sidecar(path)
	}
	switch {
	case domainsPath != "":
		if opt.Domains, err = analysis.LoadDomainsFile(domainsPath); err != nil {
			fmt.Fprintln(io.out, err)
			return exitFail
		}
	case inFile:
		if opt.Domains, err = analysis.ParseDomains(path, src); err != nil {
			fmt.Fprintln(io.out, err)
			return exitFail
		}
	}
	if f.expect != "" {
		if opt.Expect, err = analysis.LoadExpectationsFile(f.expect); err != nil {
			fmt.Fprintln(io.out, err)
			return exitFail
		}
	}
	// Without --analyze only the never-fires analysis runs, bounded by --budget; the
	// partition is bounded by its number of regions.
	analyze := analysis.Lint
	if f.analyze {
		analyze = analysis.Analyze
	}
	rep, err := analyze(rs, opt)
	if err != nil {
		var fe engine.LoadErrors
		if errors.As(err, &fe) { // a domains or expectations file: it names itself
			fmt.Fprintln(io.out, err)
		} else {
			fmt.Fprintf(io.out, "%s: %v\n", path, err)
		}
		return exitFail
	}
	for _, w := range rep.Warnings {
		fmt.Fprintln(io.out, w)
	}
	findings := len(rep.Warnings)
	code := exitOK
	if f.analyze {
		if err := rep.WriteText(io.out); err != nil {
			fmt.Fprintf(io.err, "spine check: %v\n", err)
			return exitFail
		}
		findings += len(rep.Gaps()) + len(rep.Overlaps()) + len(rep.Undecided())
		for _, c := range rep.Cells {
			if !c.OK() {
				code = exitFail
			}
		}
	}
	fmt.Fprintf(io.out, "%s: %s\n", path, checkSummary(rs, rep, f.analyze))
	if findings > 0 && f.strict {
		code = exitFail
	}
	return code
}

// sidecar is the domains file next to a rule file (ggs.yaml → ggs.domains.yaml), or "".
func sidecar(path string) string {
	ext := filepath.Ext(path)
	p := strings.TrimSuffix(path, ext) + ".domains" + ext
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

func checkSummary(rs *engine.RuleSet, rep *analysis.Report, analyze bool) string {
	s := fmt.Sprintf("%s, %s", plural(len(rs.Rules()), "rule"), plural(len(rs.Params()), "param"))
	s += ", " + plural(len(rep.Warnings), "warning")
	if analyze {
		s += fmt.Sprintf(", %s, %s", plural(len(rep.Gaps()), "gap"), plural(len(rep.Overlaps()), "overlap"))
		if n := len(rep.Undecided()); n > 0 {
			s += ", " + plural(n, "undecided region")
		}
		if len(rep.Cells) > 0 {
			hold, checked, off := analysis.CellTally(rep.Cells)
			s += fmt.Sprintf(", %d of %d expected cells hold", hold, checked)
			if off > 0 {
				s += fmt.Sprintf(", %d off", off)
			}
		}
	}
	return s
}
