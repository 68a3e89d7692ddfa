package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
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

// PageFile is where the page of the trace at path goes: out, or by default beside the
// trace, .jsonl made .html; "-" is stdout. A page that would overwrite its trace is an
// error.
func PageFile(path, out string) (string, error) {
	if out == "" {
		out = strings.TrimSuffix(path, ".jsonl") + ".html"
	}
	if out != "-" && filepath.Clean(out) == filepath.Clean(path) {
		return "", fmt.Errorf("%s: the page would overwrite the trace; name another file with -o", path)
	}
	return out, nil
}

// WriteTracePage builds the page of the trace f read from path and writes it to out
// (PageFile's answer): to stdout for "-", else through WritePage. It returns the report
// the page shows.
func WriteTracePage(path string, f *trace.File, out string, stdout io.Writer) (*Report, error) {
	r, err := Build(path, f)
	if err != nil {
		return nil, err
	}
	var page bytes.Buffer
	if err := Render(&page, r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if out == "-" {
		_, err = stdout.Write(page.Bytes())
		return r, err
	}
	return r, WritePage(out, page.Bytes())
}

// shortHash is a rule hash cut for display, the algorithm kept: sha256:005c41a51e5b.
func shortHash(h string) string {
	alg, hex, ok := strings.Cut(h, ":")
	if !ok || len(hex) <= 12 {
		return h
	}
	return alg + ":" + hex[:12]
}
