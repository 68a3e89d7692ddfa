package textview

import (
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// diffExcerpt bounds how much of a differing value is quoted.
const diffExcerpt = 160

// Diff prints where two traces part: their sizes, the first differing event (or the
// first differing timestamp) and, kind by kind, what each side decided, sent and
// exchanged. It reports whether they are identical.
func Diff(w io.Writer, pathA, pathB string, d *runlog.Diff) (identical bool) {
	termtext.Printf(w, "A %s: %d events", pathA, len(d.A.Events))
	termtext.Printf(w, "B %s: %d events", pathB, len(d.B.Events))
	switch {
	case d.Header != nil || d.Event != nil:
		if d.Header != nil {
			fmt.Fprintf(w, "header: %s\n", describeDiff(d.Header))
		}
		if d.Event != nil {
			fmt.Fprintf(w, "first differing event: %s\n", describeDiff(d.Event))
		}
		if b := d.Branch; b != nil {
			other := map[string]string{"A": "B", "B": "A"}[b.Side]
			fmt.Fprintf(w, "%s continues %s's first %d lines (shared byte for byte), then parts: %s (%s)\n", b.Side, other, b.Shared, b.Resumed.Mode, termtext.Line(b.Resumed.Reason))
			if b.Reload != "" {
				fmt.Fprintf(w, "  with the rules reloaded there: %s\n", termtext.Line(b.Reload))
			}
		}
	case d.Clock != nil:
		fmt.Fprintf(w, "the same apart from their timestamps; first at %s\n", describeDiff(d.Clock))
	default:
		fmt.Fprintln(w, "identical")
		return true
	}
	for _, s := range []runlog.Sequence{d.Decisions, d.Messages, d.Exchanges} {
		summarize(w, s)
	}
	return false
}

// describeDiff names where a difference is: the line in each file, the event's kind and
// seq, the field and both values (quoted up to diffExcerpt runes).
func describeDiff(d *runlog.Difference) string {
	where := func(l *trace.Event) string {
		if l == nil {
			return "(end of trace)"
		}
		return fmt.Sprintf("line %d (seq %d, %s)", l.Line, l.Seq, l.Kind)
	}
	s := fmt.Sprintf("A %s, B %s", where(d.A), where(d.B))
	if !d.SameKind() {
		return s
	}
	if d.Field != "" {
		s += "\n  field " + termtext.Line(d.Field)
	}
	return s + fmt.Sprintf("\n  A: %s\n  B: %s", termtext.Line(excerpt(d.ValueA)), termtext.Line(excerpt(d.ValueB)))
}

func excerpt(s string) string {
	if utf8.RuneCountInString(s) <= diffExcerpt {
		return s
	}
	r := []rune(s)
	return fmt.Sprintf("%s… (%d bytes)", string(r[:diffExcerpt]), len(s))
}

// summarize prints one kind's counts on each side, its per-key counts where they differ,
// and the first position where the two sequences differ.
func summarize(w io.Writer, s runlog.Sequence) {
	fmt.Fprintf(w, "%s: A %d, B %d", s.Kind, len(s.A), len(s.B))
	if s.Same() {
		fmt.Fprintln(w, "; the same sequence")
		return
	}
	fmt.Fprintln(w)
	for _, c := range s.Counts {
		termtext.Printf(w, "  %-28s A %d, B %d", c.Key, c.A, c.B)
	}
	item := func(items []string) string {
		if s.At < len(items) {
			return items[s.At]
		}
		return "(none)"
	}
	fmt.Fprintf(w, "  first difference at #%d:\n    A: %s\n    B: %s\n", s.At+1, termtext.Line(item(s.A)), termtext.Line(item(s.B)))
}
