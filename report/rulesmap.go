package report

import (
	"bytes"
	"fmt"
	"html/template"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/engine"
)

// RulesMap is a decision map laid out as SVG: each slice a panel, each region a
// rectangle coloured by the rule that wins it, the thresholds drawn and labelled and,
// for a trace, the run's rounds as numbered points joined in order.
type RulesMap struct {
	File, Name string
	Params     []string
	Panels     []MapPanel
	Legend     []MapRule
}

// MapRule is a rule and its colour.
type MapRule struct{ Name, Colour string }

// MapPanel is one slice.
type MapPanel struct {
	Title, XLabel, YLabel string
	Width, Height         string
	Base                  string
	Cells                 []MapCell
	Cuts                  []MapCut
	Path                  string // the rounds' polyline points, "" without a trace
	Points                []MapPoint
}

// MapCell is one region's rectangle.
type MapCell struct {
	X, Y, W, H, Rule, Colour, Text, TextX, TextY, Kind string
	Region                                             int
}

// MapCut is a threshold line with its label.
type MapCut struct{ X1, Y1, X2, Y2, Label, LX, LY string }

// MapPoint is one round of a run in a panel.
type MapPoint struct{ X, Y, Round, Rule, Title string }

// palette colours rules in agenda order; past its end colours repeat.
var palette = []string{"#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#65a30d", "#ea580c", "#4f46e5", "#0d9488", "#be123c", "#a16207", "#9333ea", "#15803d", "#1d4ed8"}

// gapColour is where no rule fires.
const gapColour = "#e5e7eb"

// LayoutMap lays m out; rounds (GGS's, from a trace) draw the run's path where the
// panel's axes are signals they carry, nil for none.
func LayoutMap(m *analysis.DecisionMap, rounds []runlog.Round) *RulesMap {
	rm := &RulesMap{File: m.File, Name: m.Name, Params: m.Params}
	colour := map[string]string{}
	for i, r := range m.Rules {
		colour[r] = palette[i%len(palette)]
		rm.Legend = append(rm.Legend, MapRule{Name: r, Colour: colour[r]})
	}
	for _, s := range m.Slices {
		rm.Panels = append(rm.Panels, layoutSlice(s, colour, rounds))
	}
	return rm
}

func layoutSlice(s analysis.Slice, colour map[string]string, rounds []runlog.Round) MapPanel {
	const left, top, w = 130.0, 16.0, 600.0
	h := 44.0
	if s.Y != nil {
		h = 300
	}
	p := MapPanel{Title: s.Title, XLabel: s.X.Field, Width: num(left + w + 20), Height: num(top + h + 40)}
	for i, b := range s.Base {
		if i > 0 {
			p.Base += ", "
		}
		p.Base += b
	}
	x := func(v float64) float64 { return left + (v-s.X.Lo)/(s.X.Hi-s.X.Lo)*w }
	y := func(v float64) float64 { return top + h/2 }
	if s.Y != nil {
		p.YLabel = s.Y.Field
		y = func(v float64) float64 { return top + h - (v-s.Y.Lo)/(s.Y.Hi-s.Y.Lo)*h }
	}
	for _, c := range s.Cells {
		xs := s.X.Pieces[c.X]
		x0, x1 := x(xs.Lo), x(xs.Hi)
		y0, y1 := top, top+h
		if s.Y != nil {
			ys := s.Y.Pieces[c.Y]
			y0, y1 = y(ys.Hi), y(ys.Lo)
		}
		col, text := gapColour, "no rule fires"
		if c.Rule != "" {
			col, text = colour[c.Rule], c.Rule
		}
		if c.Kind == analysis.RegionOverlap {
			text = "overlap: " + fmt.Sprint(c.Rules)
		}
		p.Cells = append(p.Cells, MapCell{X: num(x0), Y: num(y0), W: num(x1 - x0), H: num(y1 - y0), Rule: c.Rule, Colour: col,
			Text: text, TextX: num((x0 + x1) / 2), TextY: num((y0+y1)/2 + 4), Kind: c.Kind, Region: c.Region})
	}
	for _, c := range s.X.Cuts {
		if c.At <= s.X.Lo || c.At >= s.X.Hi {
			continue
		}
		p.Cuts = append(p.Cuts, MapCut{X1: num(x(c.At)), X2: num(x(c.At)), Y1: num(top), Y2: num(top + h + 6), Label: cutLabel(c), LX: num(x(c.At)), LY: num(top + h + 18)})
	}
	if s.Y != nil {
		for _, c := range s.Y.Cuts {
			if c.At <= s.Y.Lo || c.At >= s.Y.Hi {
				continue
			}
			p.Cuts = append(p.Cuts, MapCut{X1: num(left - 6), X2: num(left + w), Y1: num(y(c.At)), Y2: num(y(c.At)), Label: cutLabel(c), LX: num(left - 8), LY: num(y(c.At) + 4)})
		}
	}
	// The run's path: each round where its signals put it on this panel's axes.
	for _, r := range rounds {
		vx, ok := signal(r, s.X.Field)
		if !ok {
			break
		}
		vy := 0.0
		if s.Y != nil {
			if vy, ok = signal(r, s.Y.Field); !ok {
				break
			}
		}
		px := x(clamp(vx, s.X.Lo, s.X.Hi))
		py := y(0)
		if s.Y != nil {
			py = y(clamp(vy, s.Y.Lo, s.Y.Hi))
		}
		if p.Path != "" {
			p.Path += " "
		}
		p.Path += num(px) + "," + num(py)
		p.Points = append(p.Points, MapPoint{X: num(px), Y: num(py), Round: strconv.Itoa(r.Round), Rule: r.Rule,
			Title: fmt.Sprintf("round %d: D %.3f · P %.3f · Ω %.3f · ∇L %+.3f → %s (%s)", r.Round, r.D, r.P, r.Omega, r.GradL, r.Directive, r.Rule)})
	}
	return p
}

// cutLabel is a threshold as the conditions spell it and its value.
func cutLabel(c analysis.Cut) string {
	v := strconv.FormatFloat(c.At, 'g', 4, 64)
	if c.Text == "" || c.Text == v {
		return v
	}
	return c.Text + " = " + v
}

// mapOfRun is the decision map of the rule set a trace's header carries, with the run's
// rounds; nil when the header has no rule source or the rules are not GGS's shape.
func mapOfRun(name, source string, rounds []runlog.Round) (*RulesMap, string) {
	if source == "" {
		return nil, "the trace's header carries no rule source"
	}
	rs, err := engine.LoadRules(name, []byte(source))
	if err != nil {
		return nil, "the recorded rules do not load: " + oneLine(err.Error(), 200)
	}
	var opt analysis.Options
	if src, ok := rs.DomainsSource(); ok {
		if opt.Domains, err = analysis.ParseDomains(name, src); err != nil {
			return nil, "the recorded rules' domains do not parse: " + oneLine(err.Error(), 200)
		}
	}
	m, err := analysis.GGSMap(rs, opt)
	if err != nil {
		return nil, oneLine(err.Error(), 200)
	}
	return LayoutMap(m, rounds), ""
}

func signal(r runlog.Round, field string) (float64, bool) {
	switch field {
	case "signals.D":
		return r.D, true
	case "signals.P":
		return r.P, true
	case "signals.omega":
		return r.Omega, true
	case "signals.grad":
		return r.GradL, true
	case "signals.L":
		return r.L, true
	}
	return 0, false
}

func clamp(v, lo, hi float64) float64 {
	if math.IsNaN(v) {
		return lo
	}
	return math.Min(math.Max(v, lo), hi)
}

// mapFragment is the map's SVG panels and legend, shared by its own page and the
// trace report's section.
const mapFragment = `{{define "map"}}<div class="rulesmap" data-rules="{{.Name}}">
{{if .Params}}<p class="muted">thresholds from the params: {{join .Params ", "}}</p>{{end}}
<div class="maplegend">{{range .Legend}}<span data-rule="{{.Name}}"><i style="background:{{.Colour}}"></i>{{.Name}}</span>{{end}}<span><i style="background:` + gapColour + `"></i>no rule fires</span></div>
{{range $i, $p := .Panels}}<figure class="mappanel" data-panel="{{$i}}"><figcaption>{{.Title}}{{with .Base}} <span class="muted">· held at {{.}}</span>{{end}}</figcaption>
<svg class="decisionmap" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {{.Width}} {{.Height}}" role="img" aria-label="{{.Title}}">
{{range .Cells}}<g class="region" data-rule="{{.Rule}}" data-kind="{{.Kind}}" data-region="{{.Region}}"><rect x="{{.X}}" y="{{.Y}}" width="{{.W}}" height="{{.H}}" fill="{{.Colour}}" fill-opacity="0.78" stroke="#fff" stroke-width="1.5"><title>region {{.Region}}: {{.Text}}</title></rect><text x="{{.TextX}}" y="{{.TextY}}" text-anchor="middle">{{.Text}}</text></g>
{{end}}{{range .Cuts}}<g class="cut"><line x1="{{.X1}}" y1="{{.Y1}}" x2="{{.X2}}" y2="{{.Y2}}"/><text x="{{.LX}}" y="{{.LY}}" text-anchor="{{if eq .X1 .X2}}middle{{else}}end{{end}}">{{.Label}}</text></g>
{{end}}<text class="axislabel" x="{{$p.Width}}" dx="-20" y="{{$p.Height}}" dy="-4" text-anchor="end">{{.XLabel}}</text>{{with .YLabel}}<text class="axislabel" x="4" y="12">{{.}}</text>{{end}}
{{with .Path}}<polyline class="runpath" points="{{.}}"/>{{end}}{{range .Points}}<g class="roundpt" data-round="{{.Round}}" data-rule="{{.Rule}}"><circle cx="{{.X}}" cy="{{.Y}}" r="9"><title>{{.Title}}</title></circle><text x="{{.X}}" y="{{.Y}}" dy="4" text-anchor="middle">{{.Round}}</text></g>{{end}}
</svg></figure>
{{end}}</div>{{end}}`

// mapStyle is the map's CSS, shared likewise.
const mapStyle = `.maplegend { display: flex; flex-wrap: wrap; gap: 6px 14px; font: 12px ui-monospace, Menlo, Consolas, "DejaVu Sans Mono", monospace; margin: 0 0 10px; }
.maplegend i { display: inline-block; width: 14px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: middle; }
figure.mappanel { margin: 0 0 14px; }
figure.mappanel figcaption { font-weight: 600; font-size: 13px; margin: 0 0 4px; }
svg.decisionmap { display: block; width: 100%; max-width: 900px; height: auto; font: 11px system-ui, -apple-system, "DejaVu Sans", sans-serif; }
svg.decisionmap .region text { fill: #fff; font-weight: 600; paint-order: stroke; stroke: rgba(0,0,0,.35); stroke-width: 2px; }
svg.decisionmap .cut line { stroke: #111827; stroke-dasharray: 5 3; stroke-width: 1.3; }
svg.decisionmap .cut text, svg.decisionmap .axislabel { fill: #374151; font-family: ui-monospace, Menlo, Consolas, monospace; }
svg.decisionmap .runpath { fill: none; stroke: #111827; stroke-width: 2; stroke-dasharray: 1 0; }
svg.decisionmap .roundpt circle { fill: #fff; stroke: #111827; stroke-width: 2; }
svg.decisionmap .roundpt text { fill: #111827; font-weight: 700; }`

var mapPage = template.Must(template.New("mappage").Funcs(template.FuncMap{"join": strings.Join}).Parse(mapFragment + `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="spine check --analyze --html">
<title>decision map · {{.Name}}</title>
<style>body { margin: 0; padding: 18px 28px; background: #f6f7f9; color: #1f2430; font: 14px/1.45 system-ui, -apple-system, "DejaVu Sans", sans-serif; }
h1 { font-size: 20px; margin: 0 0 4px; } .muted { color: #5d6576; }
` + mapStyle + `</style></head><body>
<h1>Decision map of {{.Name}}</h1><p class="muted">{{.File}}: each region of the analysed signal space coloured by the rule that wins it</p>
{{template "map" .}}
<footer class="muted">written by spine check --analyze --html · self-contained</footer></body></html>
`))

// WriteMap writes m as one self-contained HTML page.
func WriteMap(w io.Writer, m *analysis.DecisionMap) error {
	var b bytes.Buffer
	if err := mapPage.ExecuteTemplate(&b, "mappage", LayoutMap(m, nil)); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

// WriteMapFile writes the decision map of the rule file at path (analysis.MapFile) to
// out as one HTML page, replacing it only once the page is whole.
func WriteMapFile(out, path string, c analysis.FileCheck, axes string) error {
	m, err := analysis.MapFile(path, c, axes)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := WriteMap(&b, m); err != nil {
		return err
	}
	return os.WriteFile(out, b.Bytes(), 0o644)
}
