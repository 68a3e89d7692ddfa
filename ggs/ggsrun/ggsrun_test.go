package ggsrun_test

import (
	"bytes"
	"context"
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
		Engine: []engine.Option{engine.WithTrace(sink)}, Meta: map[string]string{"task_id": sc.Task.TaskID},
		Observers: []ggsrun.Observer{nil, func(seq int64, kind string, _ any) {
			if kind == trace.KindMessage {
				seqs = append(seqs, seq)
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
