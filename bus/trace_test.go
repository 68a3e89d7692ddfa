package bus

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/spine/trace"
)

// readTrace reads src whole; a line whose body does not decode is the error.
func readTrace(src string) (*trace.File, error) {
	return trace.Read("t.jsonl", strings.NewReader(src))
}

func mustReadTrace(t testing.TB, src string) *trace.File {
	t.Helper()
	tf, err := readTrace(src)
	if err != nil {
		t.Fatal(err)
	}
	return tf
}

func TestFromTraceKeepsTraceSeqs(t *testing.T) {
	raw, err := fixtures.FS.ReadFile("ggs/abandon_law2.trace.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tf := mustReadTrace(t, string(raw))
	msgs, err := FromTrace("abandon_law2", tf)
	if err != nil {
		t.Fatal(err)
	}
	var want []int64
	for _, e := range tf.Events {
		if e.Kind == trace.KindMessage {
			want = append(want, e.Seq)
		}
	}
	if len(msgs) != len(want) || len(want) == 0 {
		t.Fatalf("%d messages, want %d (one per message event)", len(msgs), len(want))
	}
	for i, m := range msgs {
		if m.Seq != want[i] || m.TaskID != "fix-1" || m.From == "" || len(m.Payload) == 0 {
			t.Errorf("message %d = seq %d from %q task %q, want seq %d of task fix-1 with a payload", i, m.Seq, m.From, m.TaskID, want[i])
		}
	}
	if last := msgs[len(msgs)-1]; last.Type != "FinalResult" || last.From != "R7" || last.To != "User" {
		t.Errorf("last message = %s %s→%s, want FinalResult R7→User", last.Type, last.From, last.To)
	}
}

func TestFromTraceMapsModelCalls(t *testing.T) {
	tf := mustReadTrace(t, `{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header"}
{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"tool:shell","request":{"cmd":"ls"}}
{"seq":3,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"llm:R4b","request":{"task_id":"t9","messages":[]},"response":"ok","duration_ms":3}
{"seq":4,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"llm:R2","request":"plain text"}
{"seq":5,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R7","to":"R5","type":"Megram"}
`)
	msgs, err := FromTrace("t", tf)
	if err != nil {
		t.Fatal(err)
	}
	want := []trace.Message{
		{Seq: 3, From: "R4b", To: ToModel, Type: TypeModelCall, TaskID: "t9", Payload: []byte(`{"name":"llm:R4b","request":{"task_id":"t9","messages":[]}}`)},
		{Seq: 4, From: "R2", To: ToModel, Type: TypeModelCall, Payload: []byte(`{"name":"llm:R2","request":"plain text"}`)},
		{Seq: 5, From: "R7", To: "R5", Type: "Megram", Payload: []byte(`null`)},
	}
	if len(msgs) != len(want) {
		t.Fatalf("got %d messages %+v, want %d", len(msgs), msgs, len(want))
	}
	for i := range want {
		g, w := msgs[i], want[i]
		if g.Seq != w.Seq || g.From != w.From || g.To != w.To || g.Type != w.Type || g.TaskID != w.TaskID || !bytes.Equal(g.Payload, w.Payload) {
			t.Errorf("message %d = %+v (payload %s), want %+v (payload %s)", i, g, g.Payload, w, w.Payload)
		}
	}
}

// A message event without its routing is FromTrace's error; one whose fields are of the
// wrong type is the decoder's, naming the line either way.
func TestFromTraceRejectsBrokenMessageEvents(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","to":"R7","type":"ReplanRequest"}`, "t.jsonl:2: message event (seq 2) has no from; want from, to and type"},
		{`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R4b","type":"ReplanRequest"}`, "t.jsonl:2: message event (seq 2) has no to; want from, to and type"},
		{`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","from":"R4b","to":"R7"}`, "t.jsonl:2: message event (seq 2) has no type; want from, to and type"},
		{`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"message","from":7,"to":"R7","type":"X"}`, "t.jsonl:2: message event: json: cannot unmarshal number into Go struct field Message.from of type string"},
		{`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"llm:"}`, `t.jsonl:2: exchange event (seq 2) is named "llm:"; want llm:<role>`},
		{`{"seq":2,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":["llm:R4b"]}`, "t.jsonl:2: exchange event: json: cannot unmarshal array into Go struct field Exchange.name of type string"},
	} {
		tf, err := readTrace(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"header"}` + "\n" + tc.line + "\n")
		if err == nil {
			_, err = FromTrace("t.jsonl", tf)
		}
		var te *trace.Error
		if !errors.As(err, &te) || err.Error() != tc.want {
			t.Errorf("%s\n  err = %v\n want a *trace.Error %s", tc.line, err, tc.want)
		}
	}
}

func FuzzFromTrace(f *testing.F) {
	for _, name := range []string{"ggs/accept.trace.jsonl", "ggs/abandon_law2.trace.jsonl"} {
		raw, err := fixtures.FS.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw)
	}
	f.Add([]byte(`{"seq":1,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"llm:R4b","request":{"task_id":1}}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tf, err := trace.Read("fuzz", bytes.NewReader(data))
		if tf == nil || err != nil {
			return
		}
		msgs, err := FromTrace("fuzz", tf)
		if err != nil {
			return
		}
		var prev int64
		for _, m := range msgs {
			if m.Seq <= prev || m.From == "" || m.To == "" || m.Type == "" || len(m.Payload) == 0 {
				t.Fatalf("bad message from an accepted trace: %+v", m)
			}
			prev = m.Seq
		}
	})
}

// A model call published live is the message an offline audit reads from its exchange.
func TestNewModelCallMatchesTheTraceAdapter(t *testing.T) {
	req := map[string]any{"task_id": "t9", "messages": []any{}}
	live, err := NewModelCall("R4b", "t9", req)
	if err != nil {
		t.Fatal(err)
	}
	tf := mustReadTrace(t, `{"seq":3,"t":"2026-01-01T00:00:00Z","kind":"exchange","name":"llm:R4b","request":{"messages":[],"task_id":"t9"},"response":"ok","duration_ms":3}`+"\n")
	offline, ok, err := FromEvent("t", &tf.Events[0])
	if err != nil || !ok {
		t.Fatalf("FromEvent: %v %v", ok, err)
	}
	live.Seq = offline.Seq
	if live.From != offline.From || live.To != offline.To || live.Type != offline.Type || live.TaskID != offline.TaskID || !bytes.Equal(live.Payload, offline.Payload) {
		t.Errorf("live %+v (%s)\noffline %+v (%s)", live, live.Payload, offline, offline.Payload)
	}
	if _, err := NewModelCall("R2", "", make(chan int)); err == nil {
		t.Error("NewModelCall encoded a channel")
	}
}
