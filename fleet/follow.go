package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/audit"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// FollowEvent is what the fleet's Auditor says about a run: a finding as it is made,
// or the run's end with its count of messages — its FinalResult seen, or its worker's
// word that it ended without one (Error says why).
type FollowEvent struct {
	Run      string                `json:"run"`
	Finding  *contract.AuditReport `json:"finding,omitempty"`
	Ended    bool                  `json:"ended,omitempty"`
	Messages int                   `json:"messages,omitempty"`
	Error    string                `json:"error,omitempty"`
}

// FollowAudit runs the Auditor (R6) over every run of the fleet live: an Auditor per run,
// fed the run's bus messages from the bus stream in trace order, as the run's own live
// Auditor is fed in its process. fromStart reads the stream from its first message,
// else from now. It returns when ctx is done.
func (c *Client) FollowAudit(ctx context.Context, cfg audit.Config, fromStart bool, on func(FollowEvent)) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	oc := jetstream.OrderedConsumerConfig{FilterSubjects: []string{BusSubjectPfx + ">"}, DeliverPolicy: jetstream.DeliverNewPolicy}
	if fromStart {
		oc.DeliverPolicy = jetstream.DeliverAllPolicy
	}
	cons, err := c.js.OrderedConsumer(ctx, BusStream, oc)
	if err != nil {
		return fmt.Errorf("fleet: following the bus: %w", err)
	}
	runs := map[string]*audit.Auditor{}
	for ctx.Err() == nil {
		msg, err := cons.Next(jetstream.FetchMaxWait(500 * time.Millisecond))
		if err != nil {
			continue // nothing new yet, or a reconnect the ordered consumer rides out
		}
		run, ok := runOfSubject(msg.Subject())
		var m trace.Message
		if !ok || json.Unmarshal(msg.Data(), &m) != nil {
			continue // not a bus message of a run
		}
		aud := runs[run]
		if aud == nil {
			if aud, err = audit.New(cfg); err != nil {
				return err
			}
			runs[run] = aud
		}
		why := ""
		if m.Type == TypeRunEnded {
			// The worker's word, not a message of the run: the Auditor does not see it.
			var end RunEnd
			if json.Unmarshal(m.Payload, &end) != nil || end.Error == "" {
				end.Error = "the run ended without a FinalResult"
			}
			why = end.Error
		} else {
			for _, f := range aud.Observe(m) {
				on(FollowEvent{Run: run, Finding: &f})
			}
		}
		if m.Type == contract.TypeFinalResult || m.Type == TypeRunEnded {
			for _, f := range aud.End() {
				on(FollowEvent{Run: run, Finding: &f})
			}
			on(FollowEvent{Run: run, Ended: true, Messages: aud.Messages(), Error: why})
			delete(runs, run)
		}
	}
	return nil
}

// runOfSubject reads <run> from spine.run.<run>.<from>.<to>.
func runOfSubject(subj string) (string, bool) {
	rest, ok := strings.CutPrefix(subj, BusSubjectPfx)
	if !ok {
		return "", false
	}
	parts := strings.Split(rest, ".")
	if len(parts) != 3 || parts[0] == "" {
		return "", false
	}
	return parts[0], true
}
