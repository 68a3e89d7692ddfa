package ggs

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
)

// open starts the post of one effector call. It records into the call's journal, whose
// events, as the trace holds them, are how the run is watched live (ggsrun.EventObserver).
func (l *Loop) open(ctx context.Context) *bus.Post {
	l.post = bus.NewPost(engine.JournalFrom(ctx))
	l.mailErr = nil
	return l.post
}

func (l *Loop) close() { l.post = nil }

// receiveReport takes R4b's report from R7's mailbox and checks that the round left no
// other mail behind.
func receiveReport(post *bus.Post) (Message, error) {
	m, ok := post.Next("R7")
	if !ok {
		return Message{}, errors.New("R7 received no report: a round must end with R4b's ReplanRequest or OutcomeSummary")
	}
	if m.From != "R4b" {
		return Message{}, fmt.Errorf("R7 received %s from %s; a round's report comes from R4b", bus.Article(m.Type), m.From)
	}
	rep, err := decodeReport(m.Type, m.Payload, true)
	switch {
	case errors.Is(err, errNotReport):
		return Message{}, fmt.Errorf("R7 received %s from R4b; a round ends with a ReplanRequest or an OutcomeSummary", bus.Article(m.Type))
	case err != nil: // worded as bus.Decode words it
		return Message{}, fmt.Errorf("bus: %s from %s to %s: the payload is not a %s: %w", m.Type, m.From, m.To, m.Type, err)
	}
	if left := post.Unread(); len(left) > 0 {
		return Message{}, fmt.Errorf("the round ended with mail unread: %s", strings.Join(left, "; "))
	}
	return rep, nil
}

// postedMemory is the Solver's memory writer inside a Loop: each Megram goes by post
// from R7 to R5, and memory's desk hands what arrived in R5's mailbox to the store. A
// Megram is written only once it is in the trace.
type postedMemory struct {
	loop  *Loop
	store MemoryWriter
}

var _ MemoryWriter = (*postedMemory)(nil)

func (w *postedMemory) Write(mg contract.Megram) {
	l := w.loop
	if l.post == nil {
		l.mailErr = errors.Join(l.mailErr, fmt.Errorf("ggs: Megram %s written outside an effector call", mg.ID))
		return
	}
	// The Megram is recorded as R7's message to R5 because the trace holds that line (and
	// the Auditor reads it); the store then takes it from here, not back from a mailbox.
	if err := l.record("R5", contract.TypeMegram, mg); err != nil {
		l.mailErr = errors.Join(l.mailErr, err)
		return
	}
	w.store.Write(mg)
}

// record journals a message from R7 to a desk outside the round's post (the user,
// memory) exactly as post.Send would, without putting it in a mailbox nobody reads.
func (l *Loop) record(to, typ string, payload any) error {
	_, err := l.post.Record("R7", to, typ, l.task.TaskID, payload)
	return err
}
