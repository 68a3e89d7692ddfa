package analysis

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/internal/termtext"
)

// WriteText writes the analysis as a readable report: the space, gaps, overlaps, regions
// the analysis could not decide, the regions each rule wins, and the expectation cells.
func (r *Report) WriteText(w io.Writer) error {
	p := &printer{w: w}
	src := "no domains declared: kinds may be absent, fields range over their types"
	if r.DomainsFile != "" {
		src = "domains from " + r.DomainsFile
	}
	p.line("%s: %d regions over %d variables (%s)", r.File, len(r.Regions), len(r.Variables), src)
	width := 0
	for _, v := range r.Variables {
		width = max(width, len(v.Name))
	}
	for _, v := range r.Variables {
		p.line("  %-*s  %s", width, v.Name, v.Domain)
	}
	p.line("every region was checked on a witness input by the engine")

	gaps, overlaps, undecided := r.Gaps(), r.Overlaps(), r.Undecided()
	if len(gaps) == 0 {
		p.line("no gap: some rule fires on every input")
	} else {
		p.line("%s where no rule fires:", count(len(gaps), "gap"))
		for _, g := range gaps {
			p.region(g, "")
		}
	}
	if len(overlaps) == 0 {
		p.line("no overlap: rules of equal salience and specificity never fire together")
	} else {
		p.line("%s where rules of equal salience and specificity fire together:", count(len(overlaps), "overlap"))
		for _, g := range overlaps {
			p.region(g, fmt.Sprintf("%s tie; the engine picks %s by recency, then by name", strings.Join(g.Rules, " and "), g.Fired))
		}
	}
	if len(undecided) > 0 {
		p.line("%s not decided: conditions the analysis cannot model may fire first:", count(len(undecided), "region"))
		for _, g := range undecided {
			p.region(g, "unless "+strings.Join(g.MayFire, " or ")+" fires first; the engine fired "+orNone(g.Fired)+" on the witness")
		}
	}

	p.line("regions won, by rule:")
	for _, rr := range r.Rules {
		obj := rr.Objective
		if obj == "" {
			obj = "(no objective)"
		}
		p.line("  %s → %s (line %d, salience %d): %s", rr.Name, obj, rr.Line, rr.Salience, ruleSummary(rr))
		for _, i := range rr.Wins {
			g := r.Regions[i]
			suffix := ""
			if !g.Decided() {
				suffix = "   [unless " + strings.Join(g.MayFire, " or ") + "]"
			}
			p.line("    #%d %s%s", g.Index, g.Condition(), suffix)
		}
	}

	if len(r.Cells) > 0 {
		hold, checked, off := CellTally(r.Cells)
		p.line("expected cells: %d of %d hold%s", hold, checked, offNote(off))
		table := ""
		for _, c := range r.Cells {
			if c.Table != table {
				table = c.Table
				p.line("  %s:", table)
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
			p.line("    %s → %s: %s", c.Cell, strings.TrimPrefix(c.Expected, "objective "), mark)
			for _, f := range c.Failures {
				p.line("      where %s: %s", f.Condition, f.Got)
				if len(f.Undecided) > 0 {
					p.line("        not decided: %s may fire first", strings.Join(f.Undecided, " or "))
				}
				p.line("        witness %s", f.Witness)
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

// line prints one line: what it quotes from a rule file or a trace (a rule's name, a
// fact's value) cannot start another line or reach a terminal raw.
func (p *printer) line(format string, args ...any) {
	p.f("%s\n", termtext.Line(fmt.Sprintf(format, args...)))
}

func (p *printer) region(g *Region, note string) {
	p.line("  #%d %s", g.Index, g.Condition())
	if note != "" {
		p.line("     %s", note)
	}
	p.line("     witness %s", g.Witness)
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
