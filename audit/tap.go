package audit

import (
	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// SubscriberName is the name the Auditor subscribes under.
const SubscriberName = "R6"

// Tap subscribes the Auditor to a bus. report, when not nil, receives each finding as it
// is made, on the Auditor's delivery goroutine, in order. After the bus is closed (or
// synced at the end of a run), call End for the findings that only the end of the
// stream proves.
func Tap(b *bus.Bus, a *Auditor, report func(contract.AuditReport)) error {
	return b.Subscribe(SubscriberName, func(m trace.Message) {
		for _, f := range a.Observe(m) {
			if report != nil {
				report(f)
			}
		}
	})
}
