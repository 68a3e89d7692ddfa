package textview

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/trace"
)

// The lines a run shows as it goes: its events on the timeline as they are written, the
// live Auditor's findings and --watch's reloads.

// Written shows each event of a run as it is written, as a reader of the trace will get
// it: encoded, then decoded by kind. A line it cannot render is not the run's error.
func (tl *Timeline) Written() func(*trace.Event) {
	var buf []byte
	return func(e *trace.Event) {
		var err error
		if buf, err = e.AppendJSON(buf[:0]); err == nil {
			_ = tl.Line(bytes.TrimSuffix(buf, []byte("\n")))
		}
	}
}

// LiveFinding is a finding of a run's live Auditor (R6) as the pipeline display shows
// it, the finding sent to the operator.
func LiveFinding(f contract.AuditReport) string {
	seqs := make([]string, len(f.Evidence))
	for i, s := range f.Evidence {
		seqs[i] = fmt.Sprint(s)
	}
	return fmt.Sprintf("R6   → Op   AuditReport     [%s] %s · task %s · seq %s · %s", f.Severity, f.Kind, f.TaskID, strings.Join(seqs, ","), f.Message)
}

// ReloadNotices says, as it happens, that --watch reloaded the rules or kept the running
// ones after a bad edit; it sees every event written and shows only the reloads, read
// back from their encoding as a reader of the trace reads them.
func ReloadNotices(w io.Writer) func(*trace.Event) {
	return func(e *trace.Event) {
		if e.Kind != trace.KindRulesReloaded && e.Kind != trace.KindRulesReloadFailed {
			return
		}
		b, err := e.AppendJSON(nil)
		if err != nil {
			return
		}
		body, derr := trace.DecodeBody(e.Kind, b)
		ev, ok := body.(trace.Reload)
		switch {
		case !ok || derr != nil:
		case ev.Error != "":
			// The error is a block (it quotes the rule file); the out writer escapes it.
			termtext.Printf(w, "rules     %s did not load; the running rules stay:", ev.Path)
			fmt.Fprintf(w, "%s\n", ev.Error)
		default:
			termtext.Printf(w, "rules     reloaded %s (%s)", ev.Path, ev.Hash)
		}
	}
}
