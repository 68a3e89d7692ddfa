package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine"
)

// EvAudit is the trace event of one Auditor finding, written after the halt.
const EvAudit = "audit"

// liveAudit taps a run's journal into a bus with the Auditor subscribed, and writes the
// findings into the trace once the run has halted. The bus never blocks the run; the
// findings depend only on the messages, so their place in the trace does not depend on
// timing, and a replay writes them again.
type liveAudit struct {
	b    *bus.Bus
	aud  *audit.Auditor
	errs []string // messages the bus could not take (shown, never fatal)
	all  []contract.AuditReport
}

func newLiveAudit(cfg audit.Config) (*liveAudit, error) {
	aud, err := audit.New(cfg)
	if err != nil {
		return nil, err
	}
	la := &liveAudit{b: bus.New(), aud: aud}
	if err := audit.Tap(la.b, aud, nil); err != nil {
		return nil, err
	}
	return la, nil
}

// options are the engine options that wire the audit into a run.
func (la *liveAudit) options() []spine.Option {
	return []spine.Option{spine.WithJournalTap(la.tap), spine.WithEpilogue(la.epilogue)}
}

// tap publishes what the run journals, under the seq of its trace event.
func (la *liveAudit) tap(seq int64, kind string, body any) {
	var m bus.Message
	var err error
	switch kind {
	case spine.EvMessage:
		sm := body.(spine.Message)
		m, err = bus.NewMessage(sm.From, sm.To, sm.Type, sm.TaskID, sm.Payload)
	case spine.EvExchange:
		x := body.(spine.Exchange)
		role, isModel := strings.CutPrefix(x.Name, "llm:")
		if !isModel {
			return
		}
		m, err = bus.NewModelCall(role, "", x.Request)
	default:
		return
	}
	if err == nil {
		_, err = la.b.PublishAt(seq, m)
	}
	if err != nil {
		la.errs = append(la.errs, err.Error())
	}
}

// epilogue waits for the Auditor to see every message, then writes its findings.
func (la *liveAudit) epilogue(emit func(kind string, body any)) {
	if err := la.b.Close(); err != nil {
		la.errs = append(la.errs, err.Error())
	}
	la.aud.End()
	la.all = la.aud.Findings()
	for _, f := range la.all {
		emit(EvAudit, auditEvent{Finding: f})
	}
}

// auditEvent wraps a finding: an AuditReport's own "kind" would clash with the event's.
type auditEvent struct {
	Finding contract.AuditReport `json:"finding"`
}

// show prints the findings in the pipeline display.
func (la *liveAudit) show(d *runDisplay) {
	for _, e := range la.errs {
		fmt.Fprintf(d.w, "R6   auditor could not take a message: %s\n", e)
	}
	for _, f := range la.all {
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
		fmt.Fprintf(d.w, "R6   → Op   AuditReport     [%s] %s · task %s · seq %s · %s\n", f.Severity, f.Kind, f.TaskID, strings.Join(seqs, ","), f.Message)
	}
}

// reloadNotices tells the user, as it happens, that --watch reloaded the rules or kept
// the running ones after a bad edit; the events themselves go to the trace.
type reloadNotices struct {
	next spine.Sink
	w    io.Writer
}

func (r *reloadNotices) Write(e *spine.Event) error {
	if err := r.next.Write(e); err != nil {
		return err
	}
	switch e.Kind {
	case spine.EvRulesReloaded, spine.EvRulesReloadFail:
		b, err := e.AppendJSON(nil)
		if err != nil {
			return err
		}
		var ev struct{ Path, Hash, Error string }
		if json.Unmarshal(b, &ev) == nil {
			if ev.Error != "" {
				fmt.Fprintf(r.w, "rules     %s did not load; the running rules stay:\n%s\n", ev.Path, ev.Error)
			} else {
				fmt.Fprintf(r.w, "rules     reloaded %s (%s)\n", ev.Path, ev.Hash)
			}
		}
	}
	return nil
}

func (r *reloadNotices) Flush() error { return r.next.Flush() }
