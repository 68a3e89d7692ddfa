package main

import (
	"fmt"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/taskrun"
)

// showDream prints the Dreamer's pass after the task.
func showDream(d *runDisplay, o *taskrun.DreamOutcome) {
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
