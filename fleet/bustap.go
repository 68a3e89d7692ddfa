package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/trace"
)

// SeqHeader carries a bus message's trace seq on NATS.
const SeqHeader = "Spine-Seq"

// busTap publishes every bus message a run journals (its message events, and its model
// calls as bus.TypeModelCall messages to bus.ToModel) on spine.run.<run>.<from>.<to>, in
// trace order, as a trace.Message carrying its trace seq.
// It watches the trace as written (taskrun.Config.Events), behind the run's secret
// scrubber and after over-long exchanges are shortened, so it publishes what the trace
// holds. Publishing
// is asynchronous and never stops the run; what fails is counted and reported by close.
type busTap struct {
	c     *Client
	run   string
	mu    sync.Mutex
	fails int
	first error
	acks  []jetstream.PubAckFuture
	final bool // a FinalResult was published
}

// TypeRunEnded marks on the bus stream the end of a run that posted no FinalResult (an
// error ended it, or an interrupt): the fleet's Auditor ends the run on it as it does on
// a FinalResult, so a follower counting ended runs counts it. It is the worker's word,
// not a message of the run: no trace holds it. Its payload is a RunEnd.
const TypeRunEnded = "RunEnded"

// RunEnd is why a run ended without a FinalResult.
type RunEnd struct {
	Error string `json:"error"`
}

// The marker's route: the fleet's worker to the fleet's Auditor.
const runEndFrom, runEndTo = "fleet", "audit"

func newBusTap(c *Client, run string) *busTap { return &busTap{c: c, run: run} }

// Subject is the subject of a bus message of a run.
func Subject(run, from, to string) string {
	return BusSubjectPfx + token(run) + "." + token(from) + "." + token(to)
}

func (t *busTap) publish(e *trace.Event) {
	m, ok, err := busMessage(e)
	if ok && err == nil && m.Type == contract.TypeFinalResult {
		t.mu.Lock()
		t.final = true
		t.mu.Unlock()
	}
	if ok && err == nil {
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

// end publishes the run's end marker when the run published no FinalResult; runErr is
// why it ended.
func (t *busTap) end(runErr error) {
	t.mu.Lock()
	final := t.final
	t.mu.Unlock()
	if final {
		return
	}
	why := "the run ended without a FinalResult"
	if runErr != nil {
		why = runErr.Error()
	}
	msg, err := runEndMsg(t.run, why)
	var ack jetstream.PubAckFuture
	if err == nil {
		ack, err = t.c.js.PublishMsgAsync(msg)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if err != nil {
		if t.fails == 0 {
			t.first = err
		}
		t.fails++
		return
	}
	t.acks = append(t.acks, ack)
}

// runEndMsg is the end marker of run on the bus stream; published twice, it is stored once.
func runEndMsg(run, why string) (*nats.Msg, error) {
	m, err := bus.NewMessage(runEndFrom, runEndTo, TypeRunEnded, "", RunEnd{Error: why})
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	return &nats.Msg{Subject: Subject(run, runEndFrom, runEndTo), Data: data,
		Header: nats.Header{jetstream.MsgIDHeader: []string{run + "/end"}}}, nil
}

// busMessage is the bus message a trace event is, as bus.FromTrace reads it from the
// written trace: a message event, or a model call's exchange (llm:<role>) as a
// bus.TypeModelCall message. ok is false for other events.
func busMessage(e *trace.Event) (m trace.Message, ok bool, err error) {
	if e.Kind != trace.KindMessage && e.Kind != trace.KindExchange {
		return m, false, nil
	}
	// The event's body encodes as the trace writes it; the bus reads the same fields.
	raw, err := json.Marshal(e.Body)
	if err != nil {
		return m, true, err
	}
	if e.Kind == trace.KindExchange {
		var x struct {
			Name    string          `json:"name"`
			Request json.RawMessage `json:"request"`
		}
		if err := json.Unmarshal(raw, &x); err != nil {
			return m, true, err
		}
		role, isModel := strings.CutPrefix(x.Name, trace.ExchangeModel)
		if !isModel || role == "" {
			return m, false, nil
		}
		var req struct {
			TaskID string `json:"task_id"`
		}
		if len(x.Request) > 0 && x.Request[0] == '{' {
			_ = json.Unmarshal(x.Request, &req) // a request without a task_id counts for the task at hand
		}
		m, err = bus.NewModelCall(role, req.TaskID, x.Request)
		m.Seq = e.Seq
		return m, true, err
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return m, true, err
	}
	if m.From == "" || m.To == "" || m.Type == "" {
		return m, true, fmt.Errorf("seq %d: a message event without from, to or type", e.Seq)
	}
	m.Seq = e.Seq
	return m, true, nil
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
