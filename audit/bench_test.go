package audit

import (
	"testing"

	"github.com/agentspine/spine/bus"
	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/fixtures"
	"github.com/agentspine/spine/spine/trace"
)

// BenchmarkAuditorMessage is one message through the bus into the Auditor: publish,
// queue, delivery on the Auditor's goroutine, decoding and every detector. The message
// is R4b's first ReplanRequest of a shipped fixture (one failed subtask with its
// verdicts, trajectory and tool calls), published again and again; Close at the end
// waits for the last delivery, so the time covers the whole path.
func BenchmarkAuditorMessage(b *testing.B) {
	raw, err := fixtures.FS.ReadFile("ggs/abandon_law2.trace.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	tf, err := trace.Read("abandon_law2", bytesReader(raw))
	if err != nil {
		b.Fatal(err)
	}
	msgs, err := bus.FromTrace("abandon_law2", tf)
	if err != nil {
		b.Fatal(err)
	}
	var m trace.Message
	for _, x := range msgs {
		if x.Type == contract.TypeReplanRequest {
			m = x
			break
		}
	}
	bs := bus.New()
	a, err := New(DefaultConfig())
	if err != nil {
		b.Fatal(err)
	}
	findings := 0
	if err := Tap(bs, a, func(contract.AuditReport) { findings++ }); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(m.Payload)))
	b.ReportAllocs()
	b.ResetTimer()
	// A counted loop rather than b.Loop: b.Loop stops the timer when it ends, and the
	// time must include Close, which waits for the Auditor to catch up.
	for i := 0; i < b.N; i++ {
		if _, err := bs.Publish(m); err != nil {
			b.Fatal(err)
		}
	}
	if err := bs.Close(); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if a.Messages() != b.N {
		b.Fatalf("the Auditor saw %d of %d messages", a.Messages(), b.N)
	}
}
