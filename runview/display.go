package runview

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

// Display prints the run as it goes: every message, the roles' and GGS's, through the
// pipeline display of `spine play`; or every message as a JSON line.
type Display struct {
	w        io.Writer
	json     *json.Encoder
	pipeline *textview.Pipeline
}

// New is the display of a run with the rules rs (for GGS's ε) on w.
func New(w io.Writer, rs *ruleset.RuleSet, asJSON bool) *Display {
	d := &Display{w: w}
	if asJSON {
		d.json = json.NewEncoder(w)
		d.json.SetEscapeHTML(false)
		return d
	}
	eps := 0.1
	if p, err := ggs.ParamsFrom(rs); err == nil {
		eps = p.Epsilon
	}
	d.pipeline = &textview.Pipeline{W: w, Epsilon: eps}
	return d
}

// Message shows one bus message (taskrun.Config.OnMessage).
func (d *Display) Message(m trace.Message) {
	if d.json != nil {
		_ = d.json.Encode(m)
		return
	}
	d.pipeline.Message(m)
}

// Audit prints the live Auditor's findings in the pipeline display, and the messages
// its bus could not take.
func (d *Display) Audit(errs []string, findings []contract.AuditReport) {
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
		seqs := make([]string, len(f.Evidence))
		for i, s := range f.Evidence {
			seqs[i] = fmt.Sprint(s)
		}
		termtext.Printf(d.w, "R6   → Op   AuditReport     [%s] %s · task %s · seq %s · %s", f.Severity, f.Kind, f.TaskID, strings.Join(seqs, ","), f.Message)
	}
}

// Dream prints the Dreamer's pass after the task.
func (d *Display) Dream(o *taskrun.DreamOutcome) {
	if d.json != nil {
		ev := struct {
			Type    string             `json:"type"`
			Report  memory.DreamReport `json:"report"`
			Journal string             `json:"journal,omitempty"`
			Error   string             `json:"error,omitempty"`
		}{Type: "DreamReport", Report: o.Report, Journal: o.Journal}
		if o.Err != nil {
			ev.Error = o.Err.Error()
		}
		_ = d.json.Encode(ev)
		return
	}
	if o.Err != nil {
		fmt.Fprintf(d.w, "memory: the Dreamer's pass failed: %v\n", o.Err)
		return
	}
	rep := o.Report
	line := fmt.Sprintf("memory: Dreamer pass: %d consolidated, %d deferred, %d failed, %d bankrupt, %d forgotten",
		rep.Consolidated, rep.Deferred, rep.Failed, rep.Bankrupt, rep.Forgotten)
	if rep.LostWrites > 0 {
		line += fmt.Sprintf("; %d megram write(s) lost since the store was opened", rep.LostWrites)
	}
	if o.Journal != "" {
		line += "; distiller journal " + o.Journal
	}
	termtext.Printf(d.w, "%s", line)
}
