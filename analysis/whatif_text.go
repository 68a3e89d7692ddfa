package analysis

import (
	"fmt"
	"io"
	"reflect"
	"strings"

	"github.com/agentspine/spine/spine/engine"
)

// WriteText prints the re-decided run: one line per decision that changed (every decision
// with all), with the values of the facts the two rules read.
func (r *WhatIfResult) WriteText(w io.Writer, all bool) error {
	p := &printer{w: w}
	changes := r.Changes()
	ended := false
	p.line("%s: %s re-decided with %s, %d changed", r.Trace, count(len(r.Decisions), "decision"), r.Edited, len(changes))
	for _, d := range r.Decisions {
		if !all && !d.Changed() {
			continue
		}
		mark := "  "
		if d.Changed() {
			mark = "* "
		}
		p.line("%siteration %d, %s (cycle %d): %s", mark, d.Iteration, d.Stage, d.Cycle, d.transition())
		if !d.Changed() {
			continue
		}
		for _, f := range d.Facts {
			if containsString(d.Reads, f.Kind) {
				p.line("    %s", factText(f))
			}
		}
		switch {
		case d.Last && d.Edited == "":
			p.line("    the recorded run ended here; the edited rules would have gone on")
		case d.EndsRun && !ended:
			p.line("    the edited rules end the run here (%s is terminal); below, what they would pick on the recorded facts", d.EditedObjective)
			ended = true
		}
	}
	if len(changes) > 0 {
		c := changes[0]
		p.line("  first change: cycle %d at seq %d; to branch the run there: spine fork %s --at %d --rules %s", c.Cycle, c.Seq, r.Trace, c.Seq, r.Edited)
	}
	for _, n := range r.Notes {
		p.line("  note: %s", n)
	}
	return p.err
}

func (d Decision) transition() string {
	side := func(rule, obj string) string {
		if rule == "" {
			return "no rule"
		}
		if obj == "" {
			return rule
		}
		return rule + " (" + obj + ")"
	}
	if !d.Changed() {
		return side(d.Recorded, d.RecordedObjective) + ", unchanged"
	}
	return side(d.Recorded, d.RecordedObjective) + " → " + side(d.Edited, d.EditedObjective)
}

// factText prints a fact as kind{field=value ...} in declaration order.
func factText(f engine.Fact) string {
	v := reflect.ValueOf(f.Payload)
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	name := f.Kind
	if f.ID != "" && f.ID != f.Kind {
		name += "/" + f.ID
	}
	if v.Kind() != reflect.Struct {
		return name + ": " + fmt.Sprint(f.Payload)
	}
	parts := make([]string, 0, v.NumField())
	for i := 0; i < v.NumField(); i++ {
		field := v.Type().Field(i).Tag.Get("json")
		parts = append(parts, field+"="+formatValue(v.Field(i).Interface()))
	}
	return name + ": " + strings.Join(parts, " ")
}
