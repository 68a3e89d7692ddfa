package ggsrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/agentspine/spine/ggs/ggsrun"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/standin/scripted"
)

// TestObserversSeeTheTraceMessagesInOrder: every observer sees each journalled message
// once, with the seq the trace gave it, in trace order; Messages passes messages alone.
func TestObserversSeeTheTraceMessagesInOrder(t *testing.T) {
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scripted.ParseFile("../../fixtures/ggs/abandon_law2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	var seqs []int64
	var msgs []trace.Message
	run, err := ggsrun.New(ggsrun.Config{Rules: rs, Plant: scripted.NewPlant(sc), Task: sc.Task,
		Trace: sink, Meta: map[string]string{"task_id": sc.Task.TaskID},
		Events: []ggsrun.EventObserver{nil, func(e *trace.Event) {
			if e.Kind == trace.KindMessage {
				seqs = append(seqs, e.Seq)
			}
		}, ggsrun.Messages(func(m trace.Message) { msgs = append(msgs, m) })}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := run.Run(context.Background())
	if err != nil || res.Final == nil {
		t.Fatalf("run: %v, final %+v", err, res.Final)
	}
	tf, err := trace.Read("run", bytes.NewReader(sink.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, e := range tf.Events {
		if e.Kind == trace.KindMessage {
			want = append(want, e.Seq)
		}
	}
	if len(want) == 0 || len(seqs) != len(want) || len(msgs) != len(want) {
		t.Fatalf("trace has %d messages; the observers saw %d and %d", len(want), len(seqs), len(msgs))
	}
	for i := range want {
		if seqs[i] != want[i] || msgs[i].Seq != want[i] {
			t.Fatalf("message %d: trace seq %d, observers saw %d and %d", i, want[i], seqs[i], msgs[i].Seq)
		}
	}
}

// filterMessages stands in for a scrubber: each message event reaches the next sink with
// a body of its own.
type filterMessages struct{ next trace.Sink }

func (f filterMessages) Write(e *trace.Event) error {
	if e.Kind == trace.KindMessage {
		e = &trace.Event{Seq: e.Seq, Time: e.Time, Kind: e.Kind, Body: json.RawMessage(`{"from":"X","to":"Y","type":"Filtered","task_id":"t","payload":{}}`)}
	}
	return f.next.Write(e)
}

func (f filterMessages) Flush() error { return f.next.Flush() }

// TestEventsSeeTheTraceAsWritten: an Events observer sees every event of the trace, the
// engine's own included, in order, as the filter handed it to the trace.
func TestEventsSeeTheTraceAsWritten(t *testing.T) {
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scripted.ParseFile("../../fixtures/ggs/abandon_law2.yaml")
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	var seen []string
	var msgs []trace.Message // as Messages reads them back from the filtered events
	run, err := ggsrun.New(ggsrun.Config{Rules: rs, Plant: scripted.NewPlant(sc), Task: sc.Task,
		Meta: map[string]string{"task_id": sc.Task.TaskID}, Trace: sink,
		Filter: func(next trace.Sink) trace.Sink { return filterMessages{next} },
		Events: []ggsrun.EventObserver{ggsrun.Messages(func(m trace.Message) { msgs = append(msgs, m) }), func(e *trace.Event) {
			b, err := e.AppendJSON(nil)
			if err != nil {
				t.Error(err)
			}
			seen = append(seen, string(bytes.TrimSuffix(b, []byte("\n"))))
		}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := run.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	tf, err := trace.Read("run", bytes.NewReader(sink.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != len(tf.Events) {
		t.Fatalf("the trace has %d events; the observer saw %d", len(tf.Events), len(seen))
	}
	kinds := map[string]bool{}
	for i, e := range tf.Events {
		var got trace.Event
		if got, err = trace.DecodeLine([]byte(seen[i])); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if got.Seq != e.Seq || got.Kind != e.Kind {
			t.Fatalf("event %d: the trace has seq %d %s, the observer saw seq %d %s", i, e.Seq, e.Kind, got.Seq, got.Kind)
		}
		if m, ok := got.Body.(trace.Message); e.Kind == trace.KindMessage && (!ok || m.Type != "Filtered") {
			t.Fatalf("event %d: the observer saw %s, not the filtered message", i, seen[i])
		}
		kinds[e.Kind] = true
	}
	for _, m := range msgs {
		if m.Type != "Filtered" || m.Seq == 0 {
			t.Errorf("Messages passed %+v, not the filtered message with its seq", m)
		}
	}
	if len(msgs) == 0 {
		t.Error("Messages passed no message")
	}
	for _, k := range []string{trace.KindHeader, trace.KindMessage, trace.KindHalt} {
		if !kinds[k] {
			t.Errorf("no %s event seen", k)
		}
	}
}
