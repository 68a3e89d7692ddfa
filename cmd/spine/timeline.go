package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentspine/spine/spine"
)

// timeline renders trace events as a readable, one-line-per-step account. It works on
// encoded lines, so the same code shows a recorded trace and a run as it happens.
type timeline struct {
	w     io.Writer
	all   bool // also show state changes and every rule evaluation
	start time.Time

	// Messages go through the live display's code into msgBuf, with GGS's ε from the
	// header's params, so both show a message alike.
	epsilon *float64
	display *runDisplay
	msgBuf  bytes.Buffer
}

type tlEvent struct {
	Seq         int64     `json:"seq"`
	T           time.Time `json:"t"`
	Kind        string    `json:"kind"`
	Run         string    `json:"run"`
	Format      string    `json:"format"`
	Rules       struct{ Name, Hash string }
	Params      map[string]any   `json:"params"`
	Fact        *json.RawMessage `json:"fact"`
	Cycle       int              `json:"cycle"`
	Stage       string           `json:"stage"`
	Scope       string           `json:"scope"`
	Evaluated   []spine.RuleEval `json:"evaluated"`
	ConflictSet []string         `json:"conflict_set"`
	Fired       string           `json:"fired"`
	DecidedBy   string           `json:"decided_by"`
	From, To    string
	Iteration   int    `json:"iteration"`
	Call        int    `json:"call"`
	Op          string `json:"op"`
	Request     json.RawMessage
	Result      json.RawMessage
	Error       string `json:"error"`
	Errors      []string
	Outcome     string `json:"outcome"`
	Objective   string `json:"objective"`
	Iterations  int    `json:"iterations"`
	Firings     int    `json:"firings"`
	Reason      string `json:"reason"`
	Rule        string `json:"rule"`
}

type tlFact struct {
	Kind    string          `json:"kind"`
	ID      string          `json:"id"`
	Rev     uint64          `json:"rev"`
	Payload json.RawMessage `json:"payload"`
}

func (tl *timeline) line(raw []byte) error {
	var e tlEvent
	if err := json.Unmarshal(raw, &e); err != nil {
		return err
	}
	if tl.start.IsZero() {
		tl.start = e.T
	}
	at := fmt.Sprintf("%5d %9s", e.Seq, "+"+e.T.Sub(tl.start).Round(time.Microsecond).String())
	p := func(format string, args ...any) {
		fmt.Fprintf(tl.w, "%s  %s\n", at, fmt.Sprintf(format, args...))
	}
	switch e.Kind {
	case spine.EvHeader:
		hash := e.Rules.Hash
		if len(hash) > 19 {
			hash = hash[:19] + "…"
		}
		p("run %s · rules %s (%s) · %s", e.Run, e.Rules.Name, hash, e.Format)
		if len(e.Params) > 0 {
			p("params %s", compactJSON(e.Params))
		}
		if eps, ok := e.Params["epsilon"].(float64); ok {
			tl.epsilon = &eps
		}
	case spine.EvFactAsserted, spine.EvFactUpdated, spine.EvFactRetracted:
		var f tlFact
		if e.Fact != nil {
			_ = json.Unmarshal(*e.Fact, &f)
		}
		verb := strings.TrimPrefix(e.Kind, "fact_")
		switch {
		case f.Kind == spine.KindState:
			if tl.all {
				p("state     %s", string(f.Payload))
			}
		case f.Kind == spine.KindObjective:
			var o struct{ Name, Rule string }
			_ = json.Unmarshal(f.Payload, &o)
			p("objective %s (set by %s)", o.Name, o.Rule)
		case e.Kind == spine.EvFactRetracted:
			p("fact      %s/%s retracted (rev %d)", f.Kind, f.ID, f.Rev)
		default:
			p("fact      %s/%s %s (rev %d) %s", f.Kind, f.ID, verb, f.Rev, string(f.Payload))
		}
	case spine.EvConflictSet:
		scope := "select"
		if e.Scope == "terminal" {
			scope = "check"
		}
		if tl.all {
			for _, ev := range e.Evaluated {
				mark := ev.Result
				if ev.Refracted {
					mark += " (refracted)"
				}
				if ev.Error != "" {
					mark += ": " + ev.Error
				}
				p("  eval    %s = %s", ev.Rule, mark)
			}
		}
		errs := 0
		for _, ev := range e.Evaluated {
			if ev.Result == spine.ResultError {
				errs++
			}
		}
		suffix := ""
		if errs > 0 {
			suffix = fmt.Sprintf(" · %d predicate error(s)", errs)
		}
		if e.Fired == "" {
			p("%-9s cycle %d: no rule fired (%d evaluated)%s", scope, e.Cycle, len(e.Evaluated), suffix)
			return nil
		}
		p("%-9s cycle %d: fired %s (decided by %s) · conflict set [%s]%s", scope, e.Cycle, e.Fired, e.DecidedBy, strings.Join(e.ConflictSet, ", "), suffix)
	case spine.EvMessage:
		tl.message(raw, p)
	case spine.EvExchange:
		tl.exchange(raw, p)
	case spine.EvRulesReloaded, spine.EvRulesReloadFail:
		var r struct{ Path, Hash, Error string }
		_ = json.Unmarshal(raw, &r)
		if r.Error != "" {
			p("rules     reload of %s failed; the running rules stay: %s", r.Path, r.Error)
		} else {
			p("rules     reloaded %s (%s)", r.Path, r.Hash)
		}
	case spine.EvRuleFired:
		// Shown with its cycle's conflict set.
	case spine.EvRuleError:
		p("rule      %s: %s", e.Rule, strings.Join(e.Errors, "; "))
	case spine.EvTransition:
		if e.To == spine.StateSelect {
			p("── iteration %d", e.Iteration)
		} else if tl.all {
			p("state     %s → %s", e.From, e.To)
		}
	case spine.EvEffectorCall:
		if tl.all {
			p("%-9s call %d %s", e.Op, e.Call, string(e.Request))
		}
	case spine.EvEffectorResult:
		switch {
		case e.Error != "":
			p("%-9s call %d failed: %s", e.Op, e.Call, e.Error)
		case tl.all:
			p("%-9s call %d → %s", e.Op, e.Call, string(e.Result))
		default:
			p("%-9s call %d → %s", e.Op, e.Call, summarizeResult(e.Result))
		}
	case spine.EvHalt:
		msg := fmt.Sprintf("halt      %s · objective %s · %d iteration(s) · %d firing(s)", e.Outcome, e.Objective, e.Iterations, e.Firings)
		if e.Reason != "" {
			msg += " · " + e.Reason
		}
		p("%s", msg)
	default:
		p("%-9s %s", e.Kind, string(raw))
	}
	return nil
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// timelineSink renders each event as it is written, alongside another sink.
type timelineSink struct {
	next spine.Sink
	tl   *timeline
	buf  []byte
}

func (s *timelineSink) Write(e *spine.Event) error {
	if err := s.next.Write(e); err != nil {
		return err
	}
	var err error
	s.buf, err = e.AppendJSON(s.buf[:0])
	if err != nil {
		return err
	}
	return s.tl.line(s.buf)
}

func (s *timelineSink) Flush() error { return s.next.Flush() }

// summarizeResult names a construct by its id and counts a gate's changes.
func summarizeResult(raw json.RawMessage) string {
	var r struct {
		ID      *string           `json:"id"`
		Changes []json.RawMessage `json:"changes"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return string(raw)
	}
	if r.ID != nil {
		return "construct " + *r.ID
	}
	return fmt.Sprintf("%d change(s)", len(r.Changes))
}
