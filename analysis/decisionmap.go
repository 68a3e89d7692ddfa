package analysis

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// A decision map is a slice of the analysed partition drawn on two axes: the pieces of
// two numeric fields, every other variable held at one base value, each cell coloured by
// the rule that wins the region it lies in. For GGS (GGSMap) the slices are seed 000's
// cascade: Ω, then D, then |∇L| × P, with thresholds from the rule set's params.

// Slice is one drawn slice: X and Y are its axes (Y nil for a strip along X alone).
type Slice struct {
	Title string
	X, Y  *Axis
	Cells []Cell
	Base  []string // the values every other variable is held at, as conditions
}

// Axis is a field and its pieces, in order.
type Axis struct {
	Field  string
	Lo, Hi float64 // the drawn range
	Cuts   []Cut   // the thresholds, ascending
	Pieces []Span
}

// Cut is a threshold on an axis, as the conditions spell it.
type Cut struct {
	At   float64
	Text string
}

// Span is one piece of an axis's domain as drawn. Point is a single value of a real
// field (the threshold itself): it has no width, and no cell is drawn on it.
type Span struct {
	Lo, Hi float64
	Point  bool
}

// Cell is the part of a slice where one region lies: the piece indexes on each axis,
// and what wins there.
type Cell struct {
	X, Y   int    // piece indexes (Y 0 in a strip)
	Rule   string // the winning rule; "" in a gap
	Kind   string // RegionWin, RegionOverlap or RegionGap
	Rules  []string
	Region int // the region's index in the analysis report
}

// DecisionMap is a rule set's map: its slices and the rules that colour them, in agenda
// order.
type DecisionMap struct {
	File   string
	Name   string
	Slices []Slice
	Rules  []string
	Params []string // name = value of the params the cuts come from, for the legend
}

// MapAxes draws the slice of rs's partition on fields x and y ("signals.P"), every
// other variable at its base: the value a witness gives a field nothing constrains, and
// present for a fact kind, unless base names it (field → value, kind → false).
func MapAxes(rs *ruleset.RuleSet, opt Options, x, y string, base map[string]any) (*DecisionMap, error) {
	a, rep, err := analyzeWith(rs, opt)
	if err != nil {
		return nil, err
	}
	s, err := a.slice(rep, x, y, base)
	if err != nil {
		return nil, err
	}
	return a.newMap(rep, []Slice{s}), nil
}

// GGSMap draws seed 000's cascade for a rule set of GGS's shape (params theta, delta,
// epsilon, rho; signals with omega, D, grad and P): the Ω strip, the D strip below θ,
// and the action grid of |∇L| against P below θ and above δ, on a round past the first
// plan with no fault, no worsening and every subtask not yet matched.
func GGSMap(rs *ruleset.RuleSet, opt Options) (*DecisionMap, error) {
	p := map[string]float64{}
	for _, n := range []string{"theta", "delta", "epsilon", "rho"} {
		v, ok := rs.Param(n)
		f, num := ruleset.Number(v)
		if !ok || !num {
			return nil, fmt.Errorf("%s: not a GGS rule set: no numeric param %s", rs.Path(), n)
		}
		p[n] = f
	}
	a, rep, err := analyzeWith(rs, opt)
	if err != nil {
		return nil, err
	}
	// A round that reached the cascade: past the first plan, no fault, not all matched,
	// no memory pair being decided.
	base := map[string]any{"memory_pair": false, "signals.round": 1.0, "signals.fault": 0.0, "signals.worsening": 0.0,
		"signals.replans": 0.0, "signals.all_matched": false}
	with := func(kv ...any) map[string]any {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	above := func(t float64) float64 { return (t + 1) / 2 } // a value between t and 1
	var slices []Slice
	for _, sp := range []struct {
		title, x, y string
		base        map[string]any
	}{
		{"Priority 1: Ω against θ", "signals.omega", "", with("signals.D", above(p["delta"]), "signals.P", 0.0, "signals.grad", 0.0)},
		{"Priority 2: D against δ (Ω < θ)", "signals.D", "", with("signals.omega", 0.0, "signals.P", 0.0, "signals.grad", 0.0)},
		{"Priority 3: |∇L| against ε and P against ρ (Ω < θ, D > δ)", "signals.P", "signals.grad", with("signals.omega", 0.0, "signals.D", above(p["delta"]))},
	} {
		s, err := a.slice(rep, sp.x, sp.y, sp.base)
		if err != nil {
			return nil, err
		}
		s.Title = sp.title
		slices = append(slices, s)
	}
	m := a.newMap(rep, slices)
	for _, n := range []string{"theta", "delta", "epsilon", "rho"} {
		m.Params = append(m.Params, n+" = "+fmtNum(p[n]))
	}
	return m, nil
}

func (a *analyzer) newMap(rep *Report, slices []Slice) *DecisionMap {
	m := &DecisionMap{File: rep.File, Name: a.rs.Name(), Slices: slices}
	for _, ri := range a.order {
		m.Rules = append(m.Rules, a.rules[ri].r.Name)
	}
	return m
}

// slice finds, for every pair of pieces of x and y, the region that holds them with the
// other variables at their base.
func (a *analyzer) slice(rep *Report, x, y string, base map[string]any) (Slice, error) {
	sp := a.sp
	find := func(name string) (int, error) {
		for i, v := range sp.vars {
			if v.name == name && v.form == varNum {
				return i, nil
			}
		}
		var names []string
		for _, v := range sp.vars {
			if v.form == varNum {
				names = append(names, v.name)
			}
		}
		sort.Strings(names)
		return -1, fmt.Errorf("%s: %s is not a numeric field the rules compare; the map can draw %s", rep.File, name, strings.Join(names, ", "))
	}
	vx, err := find(x)
	if err != nil {
		return Slice{}, err
	}
	vy := -1
	if y != "" {
		if vy, err = find(y); err != nil {
			return Slice{}, err
		}
	}
	at := make([]int, len(sp.vars)) // the base piece of every other variable
	var held []string
	for i, v := range sp.vars {
		if i == vx || i == vy {
			continue
		}
		at[i] = sp.basePiece(v, base)
		if v.form == varNum || v.form == varBool {
			held = append(held, v.name+" = "+formatValue(v.pieces[at[i]].rep))
		}
	}
	s := Slice{X: sp.axis(vx), Base: held}
	if vy >= 0 {
		s.Y = sp.axis(vy)
	}
	ny := 1
	if s.Y != nil {
		ny = len(s.Y.Pieces)
	}
	for i := range s.X.Pieces {
		for j := 0; j < ny; j++ {
			if s.X.Pieces[i].Point || (s.Y != nil && s.Y.Pieces[j].Point) {
				continue
			}
			for _, g := range rep.Regions {
				if !g.r[vx][i] || (vy >= 0 && !g.r[vy][j]) || !holds(g.r, at, vx, vy) {
					continue
				}
				c := Cell{X: i, Y: j, Kind: g.Kind, Rules: g.Rules, Region: g.Index}
				if len(g.Rules) > 0 {
					c.Rule = g.Rules[0]
				}
				s.Cells = append(s.Cells, c)
				break
			}
		}
	}
	return s, nil
}

func holds(r region, at []int, vx, vy int) bool {
	for i := range r {
		if i != vx && i != vy && !r[i][at[i]] {
			return false
		}
	}
	return true
}

// basePiece is the piece of v that holds its base value.
func (sp *space) basePiece(v *variable, base map[string]any) int {
	var want any
	switch v.form {
	case varPresence:
		want = true
		if b, ok := base[v.kind].(bool); ok {
			want = b
		}
	case varNum, varBool, varStr:
		if b, ok := base[v.name]; ok {
			want = b
		} else {
			want = defaultValue(v.fields[0])
		}
	default:
		return 0
	}
	for j, p := range v.pieces {
		switch w := want.(type) {
		case bool, string:
			if p.rep == w {
				return j
			}
		case float64:
			if (w > p.lo || (w == p.lo && p.loIn)) && (w < p.hi || (w == p.hi && p.hiIn)) {
				return j
			}
		case int:
			x := float64(w)
			if (x > p.lo || (x == p.lo && p.loIn)) && (x < p.hi || (x == p.hi && p.hiIn)) {
				return j
			}
		}
	}
	return 0
}

// axis lays a numeric variable's pieces out: an integer piece spans its integers ±½, a
// point of a real field a sliver, an unbounded end one unit past the nearest cut.
func (sp *space) axis(i int) *Axis {
	v := sp.vars[i]
	f := v.fields[0]
	ax := &Axis{Field: v.name}
	for t, text := range v.thresholds {
		ax.Cuts = append(ax.Cuts, Cut{At: t, Text: text})
	}
	sort.Slice(ax.Cuts, func(a, b int) bool { return ax.Cuts[a].At < ax.Cuts[b].At })
	lo, hi := f.lo, f.hi
	if math.IsInf(lo, -1) {
		lo = -1
		if len(ax.Cuts) > 0 {
			lo = ax.Cuts[0].At - 1
		}
	}
	if math.IsInf(hi, 1) {
		hi = 1
		if len(ax.Cuts) > 0 {
			hi = ax.Cuts[len(ax.Cuts)-1].At + 1
		}
	}
	if f.integer {
		lo, hi = lo-0.5, hi+0.5
	}
	ax.Lo, ax.Hi = lo, hi
	for _, p := range v.pieces {
		a, b := math.Max(p.lo, lo), math.Min(p.hi, hi)
		switch {
		case f.integer:
			if !p.loIn {
				a = math.Floor(a) + 1
			}
			if !p.hiIn {
				b = math.Ceil(b) - 1
			}
			a, b = a-0.5, b+0.5
		case a == b:
			ax.Pieces = append(ax.Pieces, Span{Lo: a, Hi: b, Point: true})
			continue
		}
		ax.Pieces = append(ax.Pieces, Span{Lo: math.Max(a, lo), Hi: math.Min(b, hi)})
	}
	return ax
}

// MapFile draws the decision map of the rule file at path, with the options checking it
// uses: on axes "x,y" (two fields) when given, else seed 000's cascade for GGS's rule
// set, else an error that asks for axes.
func MapFile(path string, c FileCheck, axes string) (*DecisionMap, error) {
	rs, err := engine.LoadRulesFile(path)
	if err != nil {
		return nil, err
	}
	opt, err := fileOptions(path, rs, c)
	if err != nil {
		return nil, err
	}
	if axes == "" {
		if rs.Name() == "ggs" {
			return GGSMap(rs, opt)
		}
		return nil, fmt.Errorf("%s: --html needs --axes X,Y (two numeric fields, as signals.D,signals.P) for a rule set other than ggs", path)
	}
	x, y, ok := strings.Cut(axes, ",")
	if !ok || strings.TrimSpace(x) == "" || strings.TrimSpace(y) == "" {
		return nil, fmt.Errorf("--axes %q: want two fields, X,Y", axes)
	}
	return MapAxes(rs, opt, strings.TrimSpace(x), strings.TrimSpace(y), nil)
}
