package analysis

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Options configure an analysis.
type Options struct {
	// Domains are the declared signal domains; nil means every kind may be absent and
	// every field ranges over its type.
	Domains *Domains
	// Expect is a decision table the rule set must reproduce; nil checks none.
	Expect *Expectations
	// HostParams are params the host program reads (loss weights and the like): no rule
	// needs to read them.
	HostParams []string
	// MaxRegions bounds the regions of the partition; 0 means 20000.
	MaxRegions int
	// Budget bounds the steps of Lint's never-fires analysis: a step is one piece of a
	// variable's domain looked at by a condition or cut by a split. 0 means DefaultBudget,
	// a negative budget means no bound. Steps, not time, so that the output is the same on
	// every machine.
	Budget int
}

// Region kinds.
const (
	RegionWin     = "win"     // exactly one rule wins
	RegionOverlap = "overlap" // rules of equal salience and specificity both fire
	RegionGap     = "gap"     // no rule fires
)

// Region is one part of the partition of the signal space: on all of it the same rules
// are true and the same rule wins.
type Region struct {
	Index      int
	Conditions []string // one per constrained variable; none means everywhere
	Kind       string   // RegionWin, RegionOverlap or RegionGap
	Rules      []string // the winner, or the tied rules in agenda order
	Objective  string   // the winner's objective; for an overlap, the engine's pick's
	// MayFire lists rules ranked above the outcome whose conditions the analysis cannot
	// decide here; when it is not empty the region's outcome holds only if none fires.
	MayFire []string
	Witness Witness
	// Fired is what the engine fired on the witness.
	Fired string

	r    region
	vals []oset // per rule, in file order
}

// Condition is the region as one expr condition.
func (g *Region) Condition() string {
	if len(g.Conditions) == 0 {
		return "true"
	}
	return strings.Join(g.Conditions, " && ")
}

// Decided reports whether the analysis decided the region's outcome.
func (g *Region) Decided() bool { return len(g.MayFire) == 0 }

// RuleReport is what the analysis found about one rule.
type RuleReport struct {
	Name        string
	Line        int
	Salience    int
	Specificity int
	Objective   string
	Wins        []int    // regions it wins alone
	Overlaps    []int    // regions where it ties with another rule
	Opaque      []Opaque // parts of its condition the analysis cannot model
	Status      string   // RuleFires, RuleShadowed, RuleUnsatisfiable, RuleOff, RuleUnknown or RuleUnchecked
	ShadowedBy  []string // for RuleShadowed: the rules that fire first where it holds
	OffBy       string   // for RuleOff: the conjunct over params that is false
}

// Rule statuses.
const (
	RuleFires         = "fires"
	RuleShadowed      = "shadowed"
	RuleUnsatisfiable = "unsatisfiable"
	RuleUnknown       = "not analysable"
)

// Report is the result of analysing one rule set.
type Report struct {
	File        string
	DomainsFile string
	Variables   []Variable
	Regions     []*Region
	Rules       []RuleReport // in file order
	Warnings    []Warning
	Cells       []CellResult // expectations, when given
	Stopped     *Stopped     // Lint only: the never-fires analysis ran out of budget
}

// Variable is one dimension of the analysed signal space.
type Variable struct {
	Name   string
	Domain string
	Pieces int
}

// Gaps returns the regions where no rule fires.
func (r *Report) Gaps() []*Region { return r.filter(RegionGap) }

// Overlaps returns the regions where rules of equal salience and specificity both fire.
func (r *Report) Overlaps() []*Region { return r.filter(RegionOverlap) }

// Undecided returns the regions whose outcome depends on conditions the analysis cannot model.
func (r *Report) Undecided() []*Region {
	var out []*Region
	for _, g := range r.Regions {
		if !g.Decided() {
			out = append(out, g)
		}
	}
	return out
}

func (r *Report) filter(kind string) []*Region {
	var out []*Region
	for _, g := range r.Regions {
		if g.Kind == kind {
			out = append(out, g)
		}
	}
	return out
}

// ErrTooManyRegions is returned when the partition exceeds Options.MaxRegions.
var ErrTooManyRegions = errors.New("too many regions")

// DisagreementError reports a region on whose witness the engine decides otherwise than the
// analysis: a bug in the analysis, never a property of the rules.
type DisagreementError struct {
	Region  string
	Witness string
	Detail  string
}

func (e *DisagreementError) Error() string {
	return fmt.Sprintf("analysis disagrees with the engine on region %s (witness %s): %s", e.Region, e.Witness, e.Detail)
}

type ruleInfo struct {
	r      *ruleset.Rule
	f      formula
	opaque []Opaque
}

type analyzer struct {
	rs     *ruleset.RuleSet
	sp     *space
	rules  []ruleInfo
	order  []int // rule indexes in agenda order: salience ↓, specificity ↓, name ↑
	index  map[string]int
	leaves []*Region
	max    int
}

// Analyze partitions the signal space of a rule set and decides every region. An error is
// a bad domains or expectations file, a partition too large to build, or a region on
// which the engine disagrees with the analysis.
func Analyze(rs *ruleset.RuleSet, opt Options) (*Report, error) {
	_, rep, err := analyzeWith(rs, opt)
	return rep, err
}

func analyzeWith(rs *ruleset.RuleSet, opt Options) (*analyzer, *Report, error) {
	a, err := prepare(rs, opt)
	if err != nil {
		return nil, nil, err
	}
	var cells []*cell
	if opt.Expect != nil {
		if cells, err = opt.Expect.bind(rs, a.sp); err != nil {
			return nil, nil, err
		}
	}
	a.finish()
	if err := a.decide(a.sp.fullRegion()); err != nil {
		return nil, nil, err
	}
	rep := &Report{File: rs.Path(), Regions: a.leaves}
	if opt.Domains != nil {
		rep.DomainsFile = opt.Domains.File
	}
	for i, leaf := range a.leaves {
		leaf.Index = i + 1
		if err := a.finishLeaf(leaf); err != nil {
			return nil, nil, err
		}
	}
	rep.Variables = a.variables()
	rep.Rules = a.ruleReports()
	a.markOff(rep.Rules)
	rep.Warnings = a.warnings(rep, opt.HostParams, opt.Domains != nil)
	if cells != nil {
		if rep.Cells, err = a.checkCells(cells); err != nil {
			return nil, nil, err
		}
	}
	return a, rep, nil
}

// prepare binds the domains and converts every condition, in agenda order; the space is
// finished by finish once everything that adds thresholds has added them.
func prepare(rs *ruleset.RuleSet, opt Options) (*analyzer, error) {
	dom, err := opt.Domains.bind(rs)
	if err != nil {
		return nil, err
	}
	a := &analyzer{rs: rs, sp: newSpace(rs, dom), max: opt.MaxRegions, index: map[string]int{}}
	if a.max <= 0 {
		a.max = 20000
	}
	for _, r := range rs.Rules() {
		a.index[r.Name] = len(a.rules)
		a.rules = append(a.rules, ruleInfo{r: r})
	}
	for _, r := range rs.Order() { // the engine's static agenda order
		a.order = append(a.order, a.index[r.Name])
	}
	// Converting in agenda order numbers the variables the way the cascade reads them.
	for _, i := range a.order {
		a.rules[i].f, a.rules[i].opaque = a.sp.convertNode(a.rules[i].r.Cond())
	}
	return a, nil
}

// finish cuts the variables into pieces and records the atoms that cutting turned opaque.
func (a *analyzer) finish() {
	a.sp.finish()
	for i := range a.rules {
		a.rules[i].opaque = append(a.rules[i].opaque, demoted(a.sp, a.rules[i].f)...)
	}
}

// demoted lists the atoms of a formula that finish turned opaque.
func demoted(sp *space, f formula) []Opaque {
	var out []Opaque
	eachAtom(f, func(x fAtom) {
		if at := sp.atoms[x.a]; at.opaque != "" {
			out = append(out, Opaque{Text: at.text, Reason: at.opaque})
		}
	})
	return out
}

func (a *analyzer) sameGroup(i, j int) bool {
	x, y := a.rules[i].r, a.rules[j].r
	return x.Salience == y.Salience && x.Specificity == y.Specificity
}

// decide splits r until the agenda's outcome is the same on all of it.
func (a *analyzer) decide(r region) error {
	var may []int
	for oi, ri := range a.order {
		v := a.sp.eval(a.rules[ri].f, r)
		if v == oT {
			tied := []int{ri}
			for _, rj := range a.order[oi+1:] {
				if !a.sameGroup(ri, rj) {
					break
				}
				w := a.sp.eval(a.rules[rj].f, r)
				switch {
				case w == oT:
					tied = append(tied, rj)
				case !w.has(oT):
				default:
					if at := a.sp.findSplit(a.rules[rj].f, r); at >= 0 {
						return a.splitOn(r, at)
					}
					may = append(may, rj)
				}
			}
			return a.leaf(r, tied, may)
		}
		if !v.has(oT) {
			continue
		}
		if at := a.sp.findSplit(a.rules[ri].f, r); at >= 0 {
			return a.splitOn(r, at)
		}
		may = append(may, ri)
	}
	return a.leaf(r, nil, may)
}

func (a *analyzer) splitOn(r region, at int) error {
	t, f := a.sp.split(r, at)
	for _, c := range []region{t, f} {
		if c.empty() {
			continue
		}
		if err := a.decide(c); err != nil {
			return err
		}
	}
	return nil
}

func (a *analyzer) leaf(r region, tied, may []int) error {
	if len(a.leaves) >= a.max {
		return fmt.Errorf("%w: the partition has more than %d regions; narrow the domains or simplify the conditions", ErrTooManyRegions, a.max)
	}
	g := &Region{r: r}
	switch len(tied) {
	case 0:
		g.Kind = RegionGap
	case 1:
		g.Kind = RegionWin
	default:
		g.Kind = RegionOverlap
	}
	for _, i := range tied {
		g.Rules = append(g.Rules, a.rules[i].r.Name)
	}
	if len(tied) > 0 {
		g.Objective = a.rules[tied[0]].r.Then.Objective
	}
	for _, i := range may {
		g.MayFire = append(g.MayFire, a.rules[i].r.Name)
	}
	a.leaves = append(a.leaves, g)
	return nil
}

// finishLeaf renders the region, builds its witness and checks it with the engine.
func (a *analyzer) finishLeaf(g *Region) error {
	g.Conditions = a.sp.describe(g.r)
	g.vals = make([]oset, len(a.rules))
	for i, ri := range a.rules {
		g.vals[i] = a.sp.eval(ri.f, g.r)
	}
	g.Witness = a.sp.witness(g.r)
	res, err := runWitness(a.rs, g.Witness)
	if err != nil {
		return err
	}
	g.Fired = res.Fired
	disagree := func(format string, args ...any) error {
		return &DisagreementError{Region: g.Condition(), Witness: g.Witness.String(), Detail: fmt.Sprintf(format, args...)}
	}
	if len(res.Evaluated) != len(a.rules) {
		return disagree("the engine evaluated %d rules, the analysis has %d", len(res.Evaluated), len(a.rules))
	}
	for _, ev := range res.Evaluated {
		i, ok := a.index[ev.Rule]
		if !ok {
			return disagree("the engine evaluated an unknown rule %s", ev.Rule)
		}
		want := map[oset]string{oT: engine.ResultTrue, oF: engine.ResultFalse, oE: engine.ResultError}[g.vals[i]]
		if want != "" && want != ev.Result {
			return disagree("rule %s is %s by the analysis and %s in the engine", ev.Rule, want, ev.Result)
		}
	}
	if g.Decided() {
		switch g.Kind {
		case RegionGap:
			if g.Fired != "" {
				return disagree("the analysis finds no rule, the engine fired %s", g.Fired)
			}
		case RegionWin:
			if g.Fired != g.Rules[0] {
				return disagree("the analysis picks %s, the engine fired %s", g.Rules[0], g.Fired)
			}
		case RegionOverlap:
			found := false
			for _, n := range g.Rules {
				found = found || n == g.Fired
			}
			if !found {
				return disagree("the analysis finds %s tied, the engine fired %s", strings.Join(g.Rules, ", "), g.Fired)
			}
		}
	}
	if g.Kind == RegionOverlap {
		if r, ok := a.ruleByName(g.Fired); ok {
			g.Objective = r.Then.Objective
		}
	}
	return nil
}

func (a *analyzer) ruleByName(name string) (*ruleset.Rule, bool) {
	for _, ri := range a.rules {
		if ri.r.Name == name {
			return ri.r, true
		}
	}
	return nil, false
}

func (a *analyzer) variables() []Variable {
	out := make([]Variable, 0, len(a.sp.vars))
	for i, v := range a.sp.vars {
		if v.form == varDiff && a.sp.opaqueVar(i) {
			continue
		}
		out = append(out, Variable{Name: v.name, Domain: a.sp.domainText(i), Pieces: len(v.pieces)})
	}
	return out
}

func (a *analyzer) ruleReports() []RuleReport {
	out := make([]RuleReport, len(a.rules))
	for i, ri := range a.rules {
		rr := RuleReport{Name: ri.r.Name, Line: ri.r.Line, Salience: ri.r.Salience, Specificity: ri.r.Specificity,
			Objective: ri.r.Then.Objective, Opaque: ri.opaque}
		mayWin := false
		covering := map[string]bool{}
		for li, g := range a.leaves {
			for _, n := range g.Rules {
				if n != ri.r.Name {
					continue
				}
				if g.Kind == RegionWin {
					rr.Wins = append(rr.Wins, li)
				} else {
					rr.Overlaps = append(rr.Overlaps, li)
				}
			}
			for _, n := range g.MayFire {
				mayWin = mayWin || n == ri.r.Name
			}
			if g.vals[i].has(oT) {
				for _, n := range g.Rules {
					if n != ri.r.Name {
						covering[n] = true
					}
				}
			}
		}
		switch {
		case len(rr.Wins) > 0 || len(rr.Overlaps) > 0:
			rr.Status = RuleFires
		case mayWin:
			rr.Status = RuleUnknown
		default:
			switch a.satisfiable(i, a.sp.fullRegion()) {
			case oF:
				rr.Status = RuleUnsatisfiable
			case oT:
				rr.Status = RuleShadowed
				for n := range covering {
					rr.ShadowedBy = append(rr.ShadowedBy, n)
				}
				a.sortByAgenda(rr.ShadowedBy)
			default:
				rr.Status = RuleUnknown
			}
		}
		out[i] = rr
	}
	return out
}

// satisfiable searches r for a point where rule i's condition is true: oT when found,
// oF when there is none, oT|oF when opaque parts leave it open.
func (a *analyzer) satisfiable(i int, r region) oset {
	f := a.rules[i].f
	v := a.sp.eval(f, r)
	if v == oT {
		return oT
	}
	if !v.has(oT) {
		return oF
	}
	at := a.sp.findSplit(f, r)
	if at < 0 {
		return oT | oF
	}
	t, e := a.sp.split(r, at)
	out := oF
	for _, c := range []region{t, e} {
		if c.empty() {
			continue
		}
		switch a.satisfiable(i, c) {
		case oT:
			return oT
		case oT | oF:
			out = oT | oF
		}
	}
	return out
}

func (a *analyzer) sortByAgenda(names []string) {
	rank := map[string]int{}
	for k, i := range a.order {
		rank[a.rules[i].r.Name] = k
	}
	sort.Slice(names, func(i, j int) bool { return rank[names[i]] < rank[names[j]] })
}
