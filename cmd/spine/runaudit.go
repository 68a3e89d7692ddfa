package main

import (
	"fmt"
	"io"

	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/trace"
)

// reloadNotices tells the user, as it happens, that --watch reloaded the rules or kept
// the running ones after a bad edit; it watches the trace as written (ggsrun.EventObserver).
func reloadNotices(w io.Writer) ggsrun.EventObserver {
	return func(e *trace.Event) {
		if e.Kind != trace.KindRulesReloaded && e.Kind != trace.KindRulesReloadFailed {
			return
		}
		b, err := e.AppendJSON(nil)
		if err != nil {
			return
		}
		body, derr := trace.DecodeBody(e.Kind, b)
		if ev, ok := body.(trace.Reload); ok && derr == nil {
			if ev.Error != "" {
				// The error is a block (it quotes the rule file); the out writer escapes it.
				termtext.Printf(w, "rules     %s did not load; the running rules stay:", ev.Path)
				fmt.Fprintf(w, "%s\n", ev.Error)
			} else {
				termtext.Printf(w, "rules     reloaded %s (%s)", ev.Path, ev.Hash)
			}
		}
	}
}
