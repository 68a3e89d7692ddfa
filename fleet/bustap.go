package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/spine"
)

// SeqHeader carries a bus message's trace seq on NATS.
const SeqHeader = "Spine-Seq"

// busTap publishes every message event a run journals on
// spine.run.<run>.<from>.<to>, in trace order, as a bus.Message carrying its trace seq.
// It sits behind the run's secret scrubber, so it sees what the trace holds. Publishing
// is asynchronous and never stops the run; what fails is counted and reported by close.
type busTap struct {
	c     *Client
	run   string
	mu    sync.Mutex
	fails int
	first error
	acks  []jetstream.PubAckFuture
}

func newBusTap(c *Client, run string) *busTap { return &busTap{c: c, run: run} }

func (t *busTap) wrap(next spine.Sink) spine.Sink { return &tapSink{next: next, t: t} }

// Subject is the subject of a bus message of a run.
func Subject(run, from, to string) string {
	return BusSubjectPfx + token(run) + "." + token(from) + "." + token(to)
}

func (t *busTap) publish(e *spine.Event) {
	if e.Kind != spine.EvMessage {
		return
	}
	// The event's body encodes as the trace writes it; the bus reads the same fields.
	raw, err := json.Marshal(e.Body)
	var m bus.Message
	if err == nil {
		err = json.Unmarshal(raw, &m)
	}
	if err == nil && (m.From == "" || m.To == "" || m.Type == "") {
		err = fmt.Errorf("seq %d: a message event without from, to or type", e.Seq)
	}
	if err == nil {
		m.Seq = e.Seq
		var data []byte
		if data, err = json.Marshal(m); err == nil {
			seq := strconv.FormatInt(e.Seq, 10)
			var ack jetstream.PubAckFuture
			ack, err = t.c.js.PublishMsgAsync(&nats.Msg{Subject: Subject(t.run, m.From, m.To), Data: data,
				Header: nats.Header{SeqHeader: []string{seq}, jetstream.MsgIDHeader: []string{t.run + "/" + seq}}})
			if err == nil {
				t.mu.Lock()
				t.acks = append(t.acks, ack)
				t.mu.Unlock()
			}
		}
	}
	if err != nil {
		t.mu.Lock()
		if t.fails == 0 {
			t.first = err
		}
		t.fails++
		t.mu.Unlock()
	}
}

// close waits for the server to have every message, and reports what failed.
func (t *busTap) close(ctx context.Context) error {
	select {
	case <-t.c.js.PublishAsyncComplete():
	case <-ctx.Done():
		return ctx.Err()
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range t.acks {
		select {
		case <-a.Ok():
		case err := <-a.Err():
			if t.fails == 0 {
				t.first = err
			}
			t.fails++
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	t.acks = nil
	if t.fails > 0 {
		return fmt.Errorf("%d bus message(s) not published, the first: %w", t.fails, t.first)
	}
	return nil
}

type tapSink struct {
	next spine.Sink
	t    *busTap
}

func (s *tapSink) Write(e *spine.Event) error {
	if err := s.next.Write(e); err != nil {
		return err
	}
	s.t.publish(e)
	return nil
}

func (s *tapSink) Flush() error { return s.next.Flush() }
