package report

import (
	"slices"
	"time"

	"github.com/agentspine/spine/spine/trace"
)

// Call is one model or tool call on the run's time axis. An exchange is journalled when
// the call returns, so it ends at its event's time and began its recorded duration
// before; both are offsets from the trace's first event, never the reader's clock.
type Call struct {
	Anchor, Role, Name, Kind string
	Outcome                  string // answered, retried or failed (a tool: ok or failed)
	Start, End               time.Duration
}

func (b *builder) call(e *trace.Event, x trace.Exchange, it Item, role string) {
	// A trace is untrusted: times are held to a range whose arithmetic cannot overflow.
	end := clampDur(e.Time.Sub(b.start))
	start := clampDur(end - time.Duration(min(max(x.DurationMS, 0), int64(maxAxis/time.Millisecond)))*time.Millisecond)
	outcome := it.Outcome
	if it.Kind == "tool" {
		outcome = "ok"
		if it.Failed {
			outcome = "failed"
		}
	}
	b.r.Calls = append(b.r.Calls, Call{Anchor: anchor(e.Seq), Role: role, Name: x.Name, Kind: it.Kind, Outcome: outcome, Start: start, End: end})
}

// Waterfall is the calls laid out for the page: one row per call, grouped by role in
// pipeline order and by start within a role, x proportional to time. Numbers are
// formatted, as for the loss plot.
type Waterfall struct {
	Width, Height string
	Left, Right   string
	Groups        []WaterfallGroup
	Ticks         []WaterfallTick
	Span          string // the time the calls cover
}

// WaterfallGroup is one role's calls.
type WaterfallGroup struct {
	Role, Title string
	Y, LabelY   string
	Bars        []WaterfallBar
}

// WaterfallBar is one call's bar.
type WaterfallBar struct {
	Anchor, Name, Kind, Outcome string
	X, Y, W, TextX, TextY       string
	Start, Dur                  string // human times, for the bar's title
}

// WaterfallTick is a time on the axis.
type WaterfallTick struct{ X, Label string }

// waterfall lays the calls out; nil when the run made none.
func waterfall(calls []Call) *Waterfall {
	if len(calls) == 0 {
		return nil
	}
	const left, right, rowH, groupH, top = 150.0, 1150.0, 18.0, 22.0, 30.0
	// The axis starts at the trace's first event, or earlier when a call began before it.
	t0, t1 := time.Duration(0), calls[0].End
	for _, c := range calls {
		t0, t1 = min(t0, c.Start), max(t1, c.End)
	}
	step := tickStep(t1 - t0)
	t0 = floorTo(t0, step)
	t1 = -floorTo(-t1, step)
	span := t1 - t0
	x := func(d time.Duration) float64 {
		if span <= 0 {
			return left
		}
		return left + float64(d-t0)/float64(span)*(right-left)
	}
	w := &Waterfall{Width: num(right + 30), Left: num(left), Right: num(right), Span: human(span)}
	order := map[string]int{}
	for i, r := range roles {
		order[r.id] = i
	}
	byRole := map[string][]Call{}
	var names []string
	for _, c := range calls {
		if _, ok := byRole[c.Role]; !ok {
			names = append(names, c.Role)
		}
		byRole[c.Role] = append(byRole[c.Role], c)
	}
	rank := func(role string) int {
		if i, ok := order[role]; ok {
			return i
		}
		return len(roles)
	}
	slices.SortStableFunc(names, func(a, b string) int { return rank(a) - rank(b) })
	y := top
	for _, role := range names {
		g := WaterfallGroup{Role: role, Title: roleTitle(role), Y: num(y), LabelY: num(y + 15)}
		y += groupH
		cs := byRole[role]
		slices.SortStableFunc(cs, func(a, b Call) int { return cmpDur(a.Start, b.Start) })
		for _, c := range cs {
			bx, bw := x(c.Start), x(c.End)-x(c.Start)
			if bw < 2 {
				bw = 2 // an instant call still shows
			}
			g.Bars = append(g.Bars, WaterfallBar{Anchor: c.Anchor, Name: c.Name, Kind: c.Kind, Outcome: c.Outcome,
				X: num(bx), Y: num(y + 2), W: num(bw), TextX: num(left - 8), TextY: num(y + 13),
				Start: "+" + human(c.Start), Dur: human(c.End - c.Start)})
			y += rowH
		}
		w.Groups = append(w.Groups, g)
	}
	for d := t0; d <= t1; d += step {
		label := human(d)
		if d > 0 {
			label = "+" + label
		}
		w.Ticks = append(w.Ticks, WaterfallTick{X: num(x(d)), Label: label})
	}
	w.Height = num(y + 10)
	return w
}

// tickStep is the round step (1, 2 or 5 times a power of ten, from 1 ms) that cuts span
// into at most 8 parts.
func tickStep(span time.Duration) time.Duration {
	for step := time.Millisecond; step < maxAxis; step *= 10 {
		for _, m := range []time.Duration{1, 2, 5} {
			if span <= 8*m*step {
				return m * step
			}
		}
	}
	return maxAxis
}

// maxAxis bounds a time on the axis: far past any run, far below overflow.
const maxAxis = 1000 * 24 * time.Hour

func clampDur(d time.Duration) time.Duration { return min(max(d, -maxAxis), maxAxis) }

// floorTo is d rounded down to a multiple of step.
func floorTo(d, step time.Duration) time.Duration {
	q := d / step * step
	if q > d {
		q -= step
	}
	return q
}

func cmpDur(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func roleTitle(id string) string {
	for _, r := range roles {
		if r.id == id {
			return r.title
		}
	}
	return "other"
}
