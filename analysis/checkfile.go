package analysis

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// FileCheck says how CheckFile checks one rule file.
type FileCheck struct {
	// Analyze runs the completeness and overlap analysis (Analyze), not only Lint.
	Analyze bool
	// Domains is the signal domains file; "" takes the rule file's own domains: key,
	// else <rulefile>.domains<ext> beside it when there is one.
	Domains string
	// Expect is a decision table file the rules must reproduce.
	Expect string
	// HostParams are params a host reads; HostParamsOf adds those of a host that knows
	// the rule set by name.
	HostParams   []string
	HostParamsOf func(ruleSet string) []string
	// Budget bounds the never-fires analysis (Options.Budget); 0 is no bound.
	Budget int
}

// AddHostParams adds the params of a comma-separated list (a command line's), spaces
// around each and empty items dropped.
func (c *FileCheck) AddHostParams(list string) {
	for _, p := range strings.Split(list, ",") {
		if p = strings.TrimSpace(p); p != "" {
			c.HostParams = append(c.HostParams, p)
		}
	}
}

// Checked is what CheckFile found in a rule file that loads.
type Checked struct {
	Rules  *ruleset.RuleSet
	Report *Report
}

// CheckFile loads the rule file at path and analyses it as c says. Every error names
// its file: the rule file's load errors (ruleset.LoadErrors, each positioned), a domains
// or expectations file's (a *CompanionError, whose positioned errors are the same
// type), or the rule file's when it cannot be read or analysed.
func CheckFile(path string, c FileCheck) (*Checked, error) {
	rs, err := engine.LoadRulesFile(path)
	var les ruleset.LoadErrors
	if err != nil && !errors.As(err, &les) {
		return nil, fileError(path, err)
	}
	if err != nil {
		return nil, err
	}
	opt, err := fileOptions(path, rs, c)
	if err != nil {
		return nil, &CompanionError{Err: err}
	}
	// Without Analyze only the never-fires analysis runs, bounded by Budget; the
	// partition is bounded by its number of regions.
	analyze := Lint
	if c.Analyze {
		analyze = Analyze
	}
	rep, err := analyze(rs, opt)
	var fe ruleset.LoadErrors
	if err != nil && !errors.As(err, &fe) {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err != nil { // a domains or expectations file names itself
		return nil, &CompanionError{Err: err}
	}
	return &Checked{Rules: rs, Report: rep}, nil
}

// fileOptions are the analysis options of checking the rule file at path: its host
// params, budget, domains (the option, else the file's own domains: key, else a sidecar
// file) and expectations.
func fileOptions(path string, rs *ruleset.RuleSet, c FileCheck) (Options, error) {
	var err error
	opt := Options{HostParams: append([]string(nil), c.HostParams...), Budget: c.Budget}
	if c.HostParamsOf != nil {
		opt.HostParams = append(opt.HostParams, c.HostParamsOf(rs.Name())...)
	}
	if c.Budget == 0 {
		opt.Budget = -1 // no bound
	}
	// Domains: the option, else the rule file's own domains: key, else a sidecar file.
	domainsPath := c.Domains
	src, inFile := rs.DomainsSource()
	if domainsPath == "" && !inFile {
		domainsPath = domainsSidecar(path)
	}
	switch {
	case domainsPath != "":
		opt.Domains, err = LoadDomainsFile(domainsPath)
	case inFile:
		opt.Domains, err = ParseDomains(path, src)
	}
	if err == nil && c.Expect != "" {
		opt.Expect, err = LoadExpectationsFile(c.Expect)
	}
	if err != nil {
		return Options{}, err
	}
	return opt, nil
}

// CompanionError is a problem in a file that goes with the rule file, its domains or
// expectations file (Err, their ruleset.LoadErrors or why they could not be read): the
// rule file itself loaded. Its text is Err's, which names the file.
type CompanionError struct{ Err error }

func (e *CompanionError) Error() string { return e.Err.Error() }
func (e *CompanionError) Unwrap() error { return e.Err }

// domainsSidecar is the domains file next to a rule file (ggs.yaml → ggs.domains.yaml),
// or "".
func domainsSidecar(path string) string {
	ext := filepath.Ext(path)
	p := strings.TrimSuffix(path, ext) + ".domains" + ext
	if _, err := os.Stat(p); err == nil {
		return p
	}
	return ""
}

// Findings counts the warnings and, with the analysis, the gaps, overlaps and undecided
// regions.
func (c *Checked) Findings(analyzed bool) int {
	n := len(c.Report.Warnings)
	if analyzed {
		n += len(c.Report.Gaps()) + len(c.Report.Overlaps()) + len(c.Report.Undecided())
	}
	return n
}

// CellsHold reports whether every expected cell holds (true when there are none).
func (c *Checked) CellsHold() bool {
	for _, cell := range c.Report.Cells {
		if !cell.OK() {
			return false
		}
	}
	return true
}

// Summary sums the check up in one line: rules, params, warnings and, with the
// analysis, gaps, overlaps, undecided regions and expected cells.
func (c *Checked) Summary(analyzed bool) string {
	rep := c.Report
	s := fmt.Sprintf("%s, %s", plural(len(c.Rules.Rules()), "rule"), plural(len(c.Rules.Params()), "param"))
	s += ", " + plural(len(rep.Warnings), "warning")
	if analyzed {
		s += fmt.Sprintf(", %s, %s", plural(len(rep.Gaps()), "gap"), plural(len(rep.Overlaps()), "overlap"))
		if n := len(rep.Undecided()); n > 0 {
			s += ", " + plural(n, "undecided region")
		}
		if len(rep.Cells) > 0 {
			hold, checked, off := CellTally(rep.Cells)
			s += fmt.Sprintf(", %d of %d expected cells hold", hold, checked)
			if off > 0 {
				s += fmt.Sprintf(", %d off", off)
			}
		}
	}
	return s
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// fileError says why the rule file could not be read as every command says it of an
// input file: "PATH: no such file or directory", "PATH: a directory, not a regular
// file", not the system call's "open PATH: …" after the path again.
func fileError(path string, err error) error {
	var pe *fs.PathError
	switch {
	case !errors.As(err, &pe):
		return fmt.Errorf("%s: %w", path, err)
	case errors.Is(pe.Err, syscall.EISDIR):
		return fmt.Errorf("%s: a directory, not a regular file", path)
	}
	return fmt.Errorf("%s: %w", path, pe.Err)
}
