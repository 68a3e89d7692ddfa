package fleet

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/spine/trace"
	spinetrace "github.com/agentspine/spine/spine/trace"
)

// checkBusStream requires the bus stream to hold exactly the run's bus messages (its
// message events and model calls, as bus.FromTrace reads them), in trace order, under their trace seqs and per-run, per-role subjects.
func checkBusStream(t *testing.T, c *Client, run string, trace []byte) {
	t.Helper()
	tf, err := spinetrace.Read("stored", bytes.NewReader(trace))
	if err != nil {
		t.Fatal(err)
	}
	all, err := bus.FromTrace("stored", tf)
	if err != nil {
		t.Fatal(err)
	}
	want := all
	got := readBus(t, c, run, len(want))
	if len(got) != len(want) || len(want) == 0 {
		t.Fatalf("run %s: %d messages on the bus stream, %d in the trace", run, len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		var gp, wp any
		_ = json.Unmarshal(g.Payload, &gp)
		_ = json.Unmarshal(w.Payload, &wp)
		if g.Seq != w.Seq || g.From != w.From || g.To != w.To || g.Type != w.Type || g.TaskID != w.TaskID || !reflect.DeepEqual(gp, wp) {
			t.Fatalf("run %s: bus message %d is %d %s→%s %s, the trace's is %d %s→%s %s", run, i, g.Seq, g.From, g.To, g.Type, w.Seq, w.From, w.To, w.Type)
		}
	}
}

// readBus reads n messages of a run from the bus stream with an ordered consumer,
// checking each one's subject and seq header.
func readBus(t *testing.T, c *Client, run string, n int) []trace.Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cons, err := c.js.OrderedConsumer(ctx, BusStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{BusSubjectPfx + token(run) + ".>"}})
	if err != nil {
		t.Fatal(err)
	}
	var out []trace.Message
	for len(out) < n {
		msg, err := cons.Next(jetstream.FetchMaxWait(2 * time.Second))
		if err != nil {
			break
		}
		var m trace.Message
		if err := json.Unmarshal(msg.Data(), &m); err != nil {
			t.Fatal(err)
		}
		if want := Subject(run, m.From, m.To); msg.Subject() != want {
			t.Errorf("message seq %d on %s, want %s", m.Seq, msg.Subject(), want)
		}
		if h := msg.Headers().Get(SeqHeader); h != strconv.FormatInt(m.Seq, 10) {
			t.Errorf("message seq %d has %s %q", m.Seq, SeqHeader, h)
		}
		out = append(out, m)
	}
	return out
}
