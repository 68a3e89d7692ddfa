package report

import (
	"strconv"
	"testing"

	"github.com/agentspine/spine/runlog"
)

// TestPlotLayout lays out runs of 1 to 40 rounds, some values out of [0, 1]: one dot per
// round in each series, every dot inside the plot area, x increasing with the round, and
// the directive labels turned further the more rounds there are.
func TestPlotLayout(t *testing.T) {
	f := func(s string) float64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("coordinate %q: %v", s, err)
		}
		return v
	}
	delta, rho, theta := 0.3, 0.5, 0.8
	for _, n := range []int{1, 2, 6, 7, 14, 15, 40} {
		var rounds []runlog.Round
		for i := 1; i <= n; i++ {
			rounds = append(rounds, runlog.Round{Round: i, D: float64(i%3) / 2, P: -0.5, Omega: float64(i%10) / 10, L: 1.2, Directive: "refine"})
		}
		p := plot(rounds, runlog.Thresholds{Delta: &delta, Rho: &rho, Theta: &theta})
		left, right, top, bottom := f(p.Left), f(p.Right), f(p.Top), f(p.Bottom)
		if len(p.Series) != 4 || len(p.Thresholds) != 3 || len(p.Directives) != n {
			t.Fatalf("%d rounds: %d series, %d thresholds, %d directive labels", n, len(p.Series), len(p.Thresholds), len(p.Directives))
		}
		for _, s := range p.Series {
			if len(s.Dots) != n {
				t.Errorf("%d rounds: series %s has %d dots", n, s.Key, len(s.Dots))
			}
			prev := left
			for i, d := range s.Dots {
				x, y := f(d.X), f(d.Y)
				if x < left || x > right || y < top || y > bottom || (i > 0 && x <= prev) {
					t.Errorf("%d rounds: %s dot %d at (%v, %v), outside [%v, %v]×[%v, %v] or not right of the last", n, s.Key, i, x, y, left, right, top, bottom)
				}
				prev = x
			}
		}
		want := map[bool]string{false: "", true: "-25"}[n > 6]
		if n > 14 {
			want = "-60"
		}
		if l := p.Directives[0]; l.Rotate != (n > 6) || l.Rotate && l.Angle != want {
			t.Errorf("%d rounds: label rotate %v angle %q, want %v %q", n, l.Rotate, l.Angle, n > 6, want)
		}
		if p.YMax != "1.25" {
			t.Errorf("%d rounds: y up to %s, want 1.25 for an L of 1.2", n, p.YMax)
		}
	}
	if plot(nil, runlog.Thresholds{}) != nil {
		t.Error("a run without rounds has a plot")
	}
}
