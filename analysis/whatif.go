package analysis

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// Decision is one recorded agenda cycle, decided again with other rules on the facts the
// recorded run had at that point.
type Decision struct {
	Seq       int64 // seq of the recorded conflict_set event
	Line      int   // its line in the trace
	Cycle     int
	Iteration int
	Stage     string
	Scope     string // "all", or "terminal" when only terminal-objective rules took part

	Recorded          string // the rule the recording fired, "" for none
	RecordedObjective string
	Edited            string // the rule the edited rules fire, "" for none
	EditedObjective   string

	// Facts are the facts the rules saw, ordered by kind then id.
	Facts []engine.Fact
	// Reads are the kinds the two rules read, whose facts explain the decision (every
	// declared kind when neither rule reads one).
	Reads []string
	// EndsRun is set when the edited rules pick a terminal objective where the recording
	// did not.
	EndsRun bool
	// Last is set on the recording's last decision when the run halted after it.
	Last bool
}

// Changed reports whether the edited rules decide otherwise than the recording.
func (d Decision) Changed() bool {
	return d.Recorded != d.Edited || d.RecordedObjective != d.EditedObjective
}

// WhatIfResult is every decision of one recording, re-decided.
type WhatIfResult struct {
	Trace     string
	Recorded  string // the recorded rule set: path and hash
	Edited    string // the edited rule set's path
	Decisions []Decision
	// Notes say where the recorded facts did not fit the edited rules (a kind or field
	// they do not declare) and other limits of the re-decision.
	Notes []string
	// ended is true when the recorded run halted.
	ended bool
}

// Changes returns the decisions the edited rules change.
func (r *WhatIfResult) Changes() []Decision {
	var out []Decision
	for _, d := range r.Decisions {
		if d.Changed() {
			out = append(out, d)
		}
	}
	return out
}

// factEvent is a recorded fact change, decoded once.
type factEvent struct {
	line   int
	op     string // engine.OpAssert, OpUpdate or OpRetract
	kind   string
	id     string
	rev    uint64
	fields ruleset.Fields
}

// recordedObjective is unknown when the cycle is decoded (rule_fired follows it); the
// fired rule's objective in the edited rules stands in, which is what matters for
// whether the recording ended the run here.
func recordedObjective(c trace.ConflictSet, rs *ruleset.RuleSet) string {
	if r := ruleNamed(rs, c.Fired); r != nil {
		return r.Then.Objective
	}
	return ""
}

// WhatIfFile re-decides the trace in the file path with edited rules (WhatIf over
// replay.ReadRecording's recording).
func WhatIfFile(path string, edited *ruleset.RuleSet) (*WhatIfResult, error) {
	rec, err := replay.ReadRecording(path)
	if err != nil {
		return nil, err
	}
	return WhatIf(rec, edited)
}

// WhatIf re-decides every agenda cycle of a recording with edited rules, calling no
// effector. Working memory is rebuilt from the recorded fact events up to each recorded
// conflict_set, in a fresh session of the edited rules, and one cycle of that session
// gives the decision; a cycle the recording ran with the terminal scope considers only
// rules that set a terminal objective. Refraction follows the recorded firings: a rule
// the recording fired is not chosen again until a kind it reads has changed.
func WhatIf(rec *replay.Recording, edited *ruleset.RuleSet) (*WhatIfResult, error) {
	res := &WhatIfResult{Trace: rec.Name, Edited: edited.Path(),
		Recorded: rec.Header.Rules.Path + " (" + rec.Header.Rules.Hash + ")"}
	notes := map[string]bool{}
	note := func(format string, args ...any) { notes[fmt.Sprintf(format, args...)] = true }
	if rec.Torn != nil {
		note("the trace's %s", rec.Torn)
	}
	var history []factEvent
	kindRev := map[string]uint64{}
	firedAt := map[string]map[string]uint64{}
	for i := range rec.Events {
		e := &rec.Events[i]
		switch b := e.Body.(type) {
		case trace.FactChange:
			ev, err := decodeFactEvent(e.Line, e.Kind, b.Fact)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", rec.Name, e.Line, e.Kind, err)
			}
			history = append(history, ev)
			kindRev[ev.kind] = ev.rev
		case trace.RuleFired:
			snap := make(map[string]uint64, len(kindRev))
			for k, v := range kindRev {
				snap[k] = v
			}
			firedAt[b.Rule] = snap
			if n := len(res.Decisions); n > 0 && res.Decisions[n-1].Cycle == b.Cycle && b.Then != nil {
				res.Decisions[n-1].RecordedObjective = b.Then.Objective
			}
		case trace.ConflictSet:
			d, line, err := decideAgain(edited, history, b, kindRev, firedAt, note)
			if err != nil {
				if line == 0 {
					line = e.Line
				}
				return nil, fmt.Errorf("%s:%d: %w", rec.Name, line, err)
			}
			d.Seq, d.Line = e.Seq, e.Line
			res.Decisions = append(res.Decisions, d)
		case trace.Halt:
			res.ended = true
		}
	}
	if n := len(res.Decisions); n > 0 && res.ended {
		res.Decisions[n-1].Last = true
	}
	for n := range notes {
		res.Notes = append(res.Notes, n)
	}
	sort.Strings(res.Notes)
	return res, nil
}

func decodeFactEvent(line int, kind string, f trace.Fact) (factEvent, error) {
	ev := factEvent{line: line, kind: f.Kind, id: f.ID, rev: f.Rev}
	switch kind {
	case trace.KindFactAsserted:
		ev.op = engine.OpAssert
	case trace.KindFactUpdated:
		ev.op = engine.OpUpdate
	default:
		ev.op = engine.OpRetract
		return ev, nil
	}
	if len(f.Payload) > 0 && string(f.Payload) != "null" {
		dec := json.NewDecoder(bytes.NewReader(f.Payload))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			return factEvent{}, fmt.Errorf("payload: %w", err)
		}
		ev.fields = m
	}
	return ev, nil
}

// decideAgain rebuilds working memory in a fresh session of the edited rules and runs one
// cycle on it. An error that belongs to a recorded fact event comes with its line.
func decideAgain(rs *ruleset.RuleSet, history []factEvent, c trace.ConflictSet, kindRev map[string]uint64,
	firedAt map[string]map[string]uint64, note func(string, ...any)) (Decision, int, error) {
	d := Decision{Cycle: c.Cycle, Stage: c.Stage, Scope: c.Scope, Recorded: c.Fired}
	s := engine.NewSession(rs)
	revsMatch := true
	for _, ev := range history {
		k, ok := rs.Kind(ev.kind)
		if !ok {
			note("the edited rules declare no kind %q; its facts are left out", ev.kind)
			revsMatch = false
			continue
		}
		if ev.op == engine.OpRetract {
			if err := s.Retract(ev.kind, ev.id); err != nil {
				return d, ev.line, fmt.Errorf("rebuilding working memory: %w", err)
			}
			continue
		}
		fields := ruleset.Fields{}
		for name, v := range ev.fields {
			if _, ok := k.Field(name); !ok {
				note("the edited rules declare no field %q of kind %q; its values are left out", name, ev.kind)
				continue
			}
			fields[name] = v
		}
		f, err := s.Put(ev.kind, ev.id, fields)
		if err != nil {
			return d, ev.line, fmt.Errorf("rebuilding working memory: %w", err)
		}
		if f.Rev != ev.rev && revsMatch {
			note("fact revisions differ from the recording; ties between rules of equal salience and specificity may be broken differently")
			revsMatch = false
		}
	}
	if st, ok := s.Get(ruleset.KindState, ""); ok {
		if it, ok := st.Get("iteration"); ok {
			d.Iteration, _ = it.(int)
		}
	}
	cyc, err := s.Cycle(context.Background())
	if err != nil {
		return d, 0, err
	}
	for _, name := range cyc.ConflictSet {
		r := ruleNamed(rs, name)
		if c.Scope == "terminal" && !isTerminal(rs, r.Then.Objective) {
			continue
		}
		if refracted(firedAt[name], r.Reads, kindRev) {
			continue
		}
		d.Edited, d.EditedObjective = name, r.Then.Objective
		d.EndsRun = isTerminal(rs, r.Then.Objective) && !isTerminal(rs, recordedObjective(c, rs))
		break
	}
	reads := map[string]bool{}
	for _, name := range []string{d.Recorded, d.Edited} {
		if r := ruleNamed(rs, name); r != nil {
			for _, k := range r.Reads {
				reads[k] = true
			}
		}
	}
	d.Facts = s.Memory().All()
	for _, f := range d.Facts {
		builtin := f.Kind == ruleset.KindState || f.Kind == ruleset.KindObjective
		if (reads[f.Kind] || (len(reads) == 0 && !builtin)) && !containsString(d.Reads, f.Kind) {
			d.Reads = append(d.Reads, f.Kind)
		}
	}
	return d, 0, nil
}

// refracted reports whether a rule the recording fired has seen no change since, in the
// kinds the edited rule reads.
func refracted(snap map[string]uint64, reads []string, kindRev map[string]uint64) bool {
	if snap == nil {
		return false
	}
	for _, k := range reads {
		if kindRev[k] != snap[k] {
			return false
		}
	}
	return true
}

// ruleNamed is the rule of rs called name, nil when it has none.
func ruleNamed(rs *ruleset.RuleSet, name string) *ruleset.Rule {
	for _, r := range rs.Rules() {
		if r.Name == name {
			return r
		}
	}
	return nil
}

func isTerminal(rs *ruleset.RuleSet, objective string) bool {
	o, ok := rs.Objective(objective)
	return ok && o.Terminal != ""
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
