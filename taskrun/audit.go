package taskrun

import (
	"strings"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
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

// observe publishes what the run journals, under the seq of its trace event: it is one
// of the run's observers (ggsrun.Observer), and epilogue ends the run's trace.
func (la *liveAudit) observe(seq int64, kind string, body any) {
	var m bus.Message
	var err error
	switch kind {
	case trace.KindMessage:
		sm := body.(trace.Message)
		m, err = bus.NewMessage(sm.From, sm.To, sm.Type, sm.TaskID, sm.Payload)
	case trace.KindExchange:
		x := body.(engine.Exchange)
		role, isModel := strings.CutPrefix(x.Name, trace.ExchangeModel)
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
		emit(EvAudit, trace.Audit{Finding: f})
	}
}
