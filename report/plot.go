package report

import (
	"math"
	"strconv"

	"github.com/agentspine/spine/runlog"
)

// Plot is the loss plot's geometry, every number already formatted, so the template only
// places it. Coordinates are SVG user units.
type Plot struct {
	Width, Height string
	Left, Right   string // x of the plot area's edges
	Top, Bottom   string // y of the plot area's edges
	Ticks         []Tick
	XLabels       []XLabel
	Thresholds    []ThresholdLine
	Series        []Series
	Directives    []DirectiveLabel
	YMax          string
}

// Tick is a y-axis gridline.
type Tick struct{ Y, Label string }

// XLabel names a round under the x axis.
type XLabel struct{ X, Y, Label string }

// ThresholdLine is one of GGS's thresholds drawn across the plot.
type ThresholdLine struct {
	Name, Series, Label string // "delta", the series it bounds, "δ 0.30"
	Y, LabelX, LabelY   string
}

// Series is one signal across the rounds.
type Series struct {
	Key, Name, Points string // "Omega", "Ω", the polyline's points
	Dots              []Dot
}

// Dot is one round's value of one series.
type Dot struct {
	X, Y, Round, Value, Directive string
}

// DirectiveLabel is the directive GGS chose on a round, above its point.
type DirectiveLabel struct {
	X, Y, LineY, Text string
	Rotate            bool
	Angle             string // degrees, when Rotate
}

// plot lays out the rounds: x evenly by round, y from 0 to 1 or to the largest value.
func plot(rounds []runlog.Round, th runlog.Thresholds) *Plot {
	if len(rounds) == 0 {
		return nil
	}
	// Many rounds turn the directive labels aslant, more so the more there are, which
	// takes more room above.
	rotate, angle := len(rounds) > 6, "-25"
	const w, left, right, plotH = 1180.0, 56.0, 1000.0, 266.0
	top := 64.0
	switch {
	case len(rounds) > 14:
		top, angle = 160, "-60"
	case rotate:
		top = 124
	}
	bottom := top + plotH
	h := bottom + 50
	ymax := 1.0
	for _, r := range rounds {
		for _, v := range []float64{r.D, r.P, r.Omega, r.L} {
			if v > ymax && !math.IsInf(v, 0) {
				ymax = math.Ceil(v*4) / 4
			}
		}
	}
	x := func(i int) float64 {
		if len(rounds) == 1 {
			return (left + right) / 2
		}
		pad := 28.0
		return left + pad + float64(i)*(right-left-2*pad)/float64(len(rounds)-1)
	}
	y := func(v float64) float64 {
		if math.IsNaN(v) || v < 0 {
			v = 0
		}
		if v > ymax {
			v = ymax
		}
		return bottom - v/ymax*(bottom-top)
	}
	p := &Plot{Width: num(w), Height: num(h), Left: num(left), Right: num(right), Top: num(top), Bottom: num(bottom), YMax: strconv.FormatFloat(ymax, 'f', -1, 64)}
	for v := 0.0; v <= ymax+1e-9; v += 0.25 {
		p.Ticks = append(p.Ticks, Tick{Y: num(y(v)), Label: strconv.FormatFloat(v, 'f', 2, 64)})
	}
	for i, r := range rounds {
		p.XLabels = append(p.XLabels, XLabel{X: num(x(i)), Y: num(bottom + 20), Label: strconv.Itoa(r.Round)})
		// A label past a directive's usual length is cut; the point's title has it whole.
		text := oneLine(r.Directive, 24)
		if text == "" {
			text = "–"
		}
		p.Directives = append(p.Directives, DirectiveLabel{X: num(x(i)), Y: num(top - 14), LineY: num(y(r.L)), Text: text, Rotate: rotate, Angle: angle})
	}
	for _, t := range []struct {
		name, series, sym string
		v                 *float64
	}{{"delta", "D", "δ", th.Delta}, {"rho", "P", "ρ", th.Rho}, {"theta", "Omega", "θ", th.Theta}} {
		if t.v == nil {
			continue
		}
		p.Thresholds = append(p.Thresholds, ThresholdLine{Name: t.name, Series: t.series,
			Label: t.sym + " " + strconv.FormatFloat(*t.v, 'f', 2, 64), Y: num(y(*t.v)), LabelX: num(right + 8), LabelY: num(y(*t.v) + 4)})
	}
	for _, s := range []struct {
		key, name string
		val       func(runlog.Round) float64
	}{
		{"D", "D", func(r runlog.Round) float64 { return r.D }},
		{"P", "P", func(r runlog.Round) float64 { return r.P }},
		{"Omega", "Ω", func(r runlog.Round) float64 { return r.Omega }},
		{"L", "L", func(r runlog.Round) float64 { return r.L }},
	} {
		ser := Series{Key: s.key, Name: s.name}
		for i, r := range rounds {
			v := s.val(r)
			if ser.Points != "" {
				ser.Points += " "
			}
			ser.Points += num(x(i)) + "," + num(y(v))
			ser.Dots = append(ser.Dots, Dot{X: num(x(i)), Y: num(y(v)), Round: strconv.Itoa(r.Round),
				Value: strconv.FormatFloat(v, 'f', 3, 64), Directive: r.Directive})
		}
		p.Series = append(p.Series, ser)
	}
	return p
}

// num formats a coordinate with at most one decimal, the same on every machine.
func num(v float64) string {
	return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
}
