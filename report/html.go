package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

//go:embed page.html.tmpl
var pageSource string

// page is parsed once; html/template escapes every value by where it lands (text,
// attribute, URL), which is what keeps a model's reply from becoming markup.
var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"f3":     func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	"signed": func(v float64) string { return fmt.Sprintf("%+.3f", v) },
	"arrow":  runlog.GradArrow,
	"join":   strings.Join,
	"short":  shortHash,
	"fmtp": func(p *float64) string {
		if p == nil {
			return "–"
		}
		return strconv.FormatFloat(*p, 'f', 2, 64)
	},
	"iterName": func(n int) string {
		if n == 0 {
			return "before the loop"
		}
		return "round " + strconv.Itoa(n)
	},
	"nonEmptyLanes": func(ls []Lane) bool {
		for _, l := range ls {
			if len(l.Items) > 0 {
				return true
			}
		}
		return false
	},
	"lower":    strings.ToLower,
	"mapStyle": func() template.CSS { return template.CSS(mapStyle) },
	"shortid":  func(s string) string { short, _ := shortIDs(s); return short },
}).Parse(mapFragment + pageSource))

// pageData is what the template reads: the report and its plot.
type pageData struct {
	*Report
	Plot      *Plot
	Waterfall *Waterfall
	Epsilon   float64
}

// Render writes r as one HTML page that needs nothing but itself: styles and the little
// script it has are inline, the plot is inline SVG. The same report renders to the same
// bytes.
func Render(w io.Writer, r *Report) error {
	d := pageData{Report: r, Plot: plot(r.Loss.Rounds, r.Thresholds), Waterfall: waterfall(r.Calls)}
	if r.Thresholds.Epsilon != nil {
		d.Epsilon = *r.Thresholds.Epsilon
	}
	return page.Execute(w, d)
}

// Write builds the report of a trace read whole and renders it; see Build and Render.
func Write(w io.Writer, name string, f *trace.File) error {
	r, err := Build(name, f)
	if err != nil {
		return err
	}
	return Render(w, r)
}

// shortHash is a rule hash cut for display, the algorithm kept: sha256:005c41a51e5b.
func shortHash(h string) string {
	alg, hex, ok := strings.Cut(h, ":")
	if !ok || len(hex) <= 12 {
		return h
	}
	return alg + ":" + hex[:12]
}
