package analysis

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes the analysis as a readable report: the space, gaps, overlaps, regions
// the analysis could not decide, the regions each rule wins, and the expectation cells.
func (r *Report) WriteText(w io.Writer) error {
	p := &printer{w: w}
	src := "no domains declared: kinds may be absent, fields range over their types"
	if r.DomainsFile != "" {
		src = "domains from " + r.DomainsFile
	}
	p.f("%s: %d regions over %d variables (%s)\n", r.File, len(r.Regions), len(r.Variables), src)
	width := 0
	for _, v := range r.Variables {
		width = max(width, len(v.Name))
	}
	for _, v := range r.Variables {
		p.f("  %-*s  %s\n", width, v.Name, v.Domain)
	}
	p.f("every region was checked on a witness input by the engine\n")

	gaps, overlaps, undecided := r.Gaps(), r.Overlaps(), r.Undecided()
	if len(gaps) == 0 {
		p.f("no gap: some rule fires on every input\n")
	} else {
		p.f("%s where no rule fires:\n", count(len(gaps), "gap"))
		for _, g := range gaps {
			p.region(g, "")
		}
	}
	if len(overlaps) == 0 {
		p.f("no overlap: rules of equal salience and specificity never fire together\n")
	} else {
		p.f("%s where rules of equal salience and specificity fire together:\n", count(len(overlaps), "overlap"))
		for _, g := range overlaps {
			p.region(g, fmt.Sprintf("%s tie; the engine picks %s by recency, then by name", strings.Join(g.Rules, " and "), g.Fired))
		}
	}
	if len(undecided) > 0 {
		p.f("%s not decided: conditions the analysis cannot model may fire first:\n", count(len(undecided), "region"))
		for _, g := range undecided {
			p.region(g, "unless "+strings.Join(g.MayFire, " or ")+" fires first; the engine fired "+orNone(g.Fired)+" on the witness")
		}
	}

	p.f("regions won, by rule:\n")
	for _, rr := range r.Rules {
		obj := rr.Objective
		if obj == "" {
			obj = "(no objective)"
		}
		p.f("  %s → %s (line %d, salience %d): %s\n", rr.Name, obj, rr.Line, rr.Salience, ruleSummary(rr))
		for _, i := range rr.Wins {
			g := r.Regions[i]
			suffix := ""
			if !g.Decided() {
				suffix = "   [unless " + strings.Join(g.MayFire, " or ") + "]"
			}
			p.f("    #%d %s%s\n", g.Index, g.Condition(), suffix)
		}
	}

	if len(r.Cells) > 0 {
		hold, checked, off := CellTally(r.Cells)
		p.f("expected cells: %d of %d hold%s\n", hold, checked, offNote(off))
		table := ""
		for _, c := range r.Cells {
			if c.Table != table {
				table = c.Table
				p.f("  %s:\n", table)
			}
			mark := "holds"
			switch {
			case c.Off != "":
				mark = "off: " + c.Off + " is false"
			case c.Empty:
				mark = "EMPTY: no input within the domains lies in the cell"
			case len(c.Failures) > 0:
				mark = "FAILS"
			}
			p.f("    %s → %s: %s\n", c.Cell, strings.TrimPrefix(c.Expected, "objective "), mark)
			for _, f := range c.Failures {
				p.f("      where %s: %s\n", f.Condition, f.Got)
				if len(f.Undecided) > 0 {
					p.f("        not decided: %s may fire first\n", strings.Join(f.Undecided, " or "))
				}
				p.f("        witness %s\n", f.Witness)
			}
		}
	}
	return p.err
}

func ruleSummary(rr RuleReport) string {
	switch rr.Status {
	case RuleShadowed:
		return "never wins: shadowed by " + strings.Join(rr.ShadowedBy, ", ")
	case RuleUnsatisfiable:
		return "never wins: its condition is never true"
	case RuleOff:
		return "off: " + rr.OffBy + " is false"
	case RuleUnknown:
		return "not decided: its condition is not analysable"
	}
	s := count(len(rr.Wins), "region")
	if len(rr.Overlaps) > 0 {
		s += ", ties in " + count(len(rr.Overlaps), "region")
	}
	return s
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) f(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

func (p *printer) region(g *Region, note string) {
	p.f("  #%d %s\n", g.Index, g.Condition())
	if note != "" {
		p.f("     %s\n", note)
	}
	p.f("     witness %s\n", g.Witness)
}

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func orNone(s string) string {
	if s == "" {
		return "no rule"
	}
	return s
}

// offNote is ", N off" when some expectation cells are switched off by params.
func offNote(off int) string {
	if off == 0 {
		return ""
	}
	return fmt.Sprintf(", %d off", off)
}
