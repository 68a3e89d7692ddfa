package taskrun

import (
	"strings"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/spine/trace"
)

// EvAudit is the trace event of one Auditor finding, written after the halt
// (trace.Audit).
const EvAudit = trace.KindAudit

// liveAudit taps a run's journal into a bus with the Auditor subscribed, and writes the
// findings into the trace once the run has halted. The bus never blocks the run; the
// findings depend only on the messages, so their place in the trace does not depend on
// timing, and a replay writes them again.
type liveAudit struct {
	b    *bus.Bus
	aud  *audit.Auditor
	errs []string // messages the bus could not take (shown, never fatal)
	buf  []byte
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

// observe publishes the run's messages and model calls, as the trace holds them, under
// the seq of their trace event: it is one of the run's observers (ggsrun.EventObserver),
// and epilogue ends the run's trace.
func (la *liveAudit) observe(e *trace.Event) {
	var m trace.Message
	var err error
	switch e.Kind {
	case trace.KindMessage:
		sm, ok := ggsrun.BusMessage(e, &la.buf)
		if !ok {
			return
		}
		m, err = bus.NewMessage(sm.From, sm.To, sm.Type, sm.TaskID, sm.Payload)
	case trace.KindExchange:
		x, ok := e.Body.(trace.Exchange)
		if !ok { // a body the scrubber rewrote: read it back as the trace holds it
			var body any
			if la.buf, err = e.AppendJSON(la.buf[:0]); err == nil {
				body, err = trace.DecodeBody(e.Kind, la.buf)
			}
			x, _ = body.(trace.Exchange)
		}
		if role, isModel := strings.CutPrefix(x.Name, trace.ExchangeModel); err == nil && isModel {
			m, err = bus.NewModelCall(role, "", x.Request)
		} else if err == nil {
			return
		}
	default:
		return
	}
	if err == nil {
		_, err = la.b.PublishAt(e.Seq, m)
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
		emit(EvAudit, trace.Audit{Finding: f})
	}
}
