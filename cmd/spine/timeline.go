package main

import (
	"io"

	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/trace"
)

// timeline is report/textview's timeline with the live display's lines for messages, so
// that trace show, play and a run's --timeline show a message alike.
type timeline struct {
	w   io.Writer
	all bool // also show state changes and every rule evaluation
	v   *textview.Timeline
}

func (tl *timeline) view() *textview.Timeline {
	if tl.v == nil {
		tl.v = &textview.Timeline{W: tl.w, All: tl.all,
			Messages: func(w io.Writer, eps float64) func(trace.Message) {
				return (&textview.Pipeline{W: w, Epsilon: eps}).Message
			},
			Header: func(h trace.Header, all bool) []string { return textview.MCPToolLines(h, all) },
		}
	}
	return tl.v
}

// line decodes one encoded event line and shows it; a line that is not an event of the
// trace's layout is the decoder's error.
func (tl *timeline) line(raw []byte) error { return tl.view().Line(raw) }

// timelineEvents renders each event of a run as it is written (textview's Written).
func timelineEvents(tl *timeline) ggsrun.EventObserver { return tl.view().Written() }
