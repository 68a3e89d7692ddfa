package main

import (
	"io"

	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/report/textview"
)

// reloadNotices tells the user, as it happens, that --watch reloaded the rules or kept
// the running ones after a bad edit (textview.ReloadNotices).
func reloadNotices(w io.Writer) ggsrun.EventObserver { return textview.ReloadNotices(w) }
