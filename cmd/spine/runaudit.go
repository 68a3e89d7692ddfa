package main

import (
	"io"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report/textview"
)

// showAudit prints the live Auditor's findings in the pipeline display.
func showAudit(d *runDisplay, errs []string, findings []contract.AuditReport) {
	for _, e := range errs {
		termtext.Printf(d.w, "R6   auditor could not take a message: %s", e)
	}
	for _, f := range findings {
		if d.json != nil {
			_ = d.json.Encode(struct {
				Type    string               `json:"type"`
				Payload contract.AuditReport `json:"payload"`
			}{contract.TypeAuditReport, f})
			continue
		}
		termtext.Printf(d.w, "%s", textview.LiveFinding(f))
	}
}

// reloadNotices tells the user, as it happens, that --watch reloaded the rules or kept
// the running ones after a bad edit (textview.ReloadNotices).
func reloadNotices(w io.Writer) ggsrun.EventObserver { return textview.ReloadNotices(w) }
