package bus

import (
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/spine/trace"
)

func msg(typ string) trace.Message {
	return trace.Message{From: "R4b", To: "R7", Type: typ, TaskID: "t1", Payload: []byte(`{}`)}
}

// recorder collects what a subscriber receives.
type recorder struct {
	mu   sync.Mutex
	seqs []int64
}

func (r *recorder) deliver(m trace.Message) {
	r.mu.Lock()
	r.seqs = append(r.seqs, m.Seq)
	r.mu.Unlock()
}

func (r *recorder) got() []int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]int64(nil), r.seqs...)
}

// checkContiguous fails unless seqs is exactly first, first+1, …, first+n-1.
func checkContiguous(t *testing.T, who string, seqs []int64, first int64, n int) {
	t.Helper()
	if len(seqs) != n {
		t.Fatalf("%s received %d messages, want %d", who, len(seqs), n)
	}
	for i, s := range seqs {
		if s != first+int64(i) {
			t.Fatalf("%s: message %d has seq %d, want %d (order or loss)", who, i, s, first+int64(i))
		}
	}
}

func TestConcurrentPublishersEverySubscriberSeesPublishOrder(t *testing.T) {
	b := New()
	var a, c recorder
	if err := b.Subscribe("a", a.deliver); err != nil {
		t.Fatal(err)
	}
	if err := b.Subscribe("c", c.deliver); err != nil {
		t.Fatal(err)
	}
	const publishers, each = 4, 2500
	var wg sync.WaitGroup
	for p := 0; p < publishers; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := b.Publish(msg("ReplanRequest")); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "a", a.got(), 1, publishers*each)
	checkContiguous(t, "c", c.got(), 1, publishers*each)
}

// A subscriber that does not consume at all while 100k messages are published: the
// publisher finishes anyway, in bounded time, and once released the subscriber gets
// every message in order. A fast subscriber alongside is not held back by it.
func TestSlowSubscriberNeitherBlocksNorLoses(t *testing.T) {
	const n = 100_000
	b := New()
	gate := make(chan struct{})
	var slow, fast recorder
	first := true
	if err := b.Subscribe("slow", func(m trace.Message) {
		if first {
			first = false
			<-gate // stuck until every message has been published
		}
		slow.deliver(m)
	}); err != nil {
		t.Fatal(err)
	}
	if err := b.Subscribe("fast", fast.deliver); err != nil {
		t.Fatal(err)
	}

	type timing struct{ total, worst time.Duration }
	done := make(chan timing)
	go func() {
		var tm timing
		start := time.Now()
		for i := 0; i < n; i++ {
			t0 := time.Now()
			if _, err := b.Publish(msg("SubTaskOutcome")); err != nil {
				t.Error(err)
				break
			}
			if d := time.Since(t0); d > tm.worst {
				tm.worst = d
			}
		}
		tm.total = time.Since(start)
		done <- tm
	}()
	var tm timing
	select {
	case tm = <-done:
	case <-time.After(60 * time.Second):
		close(gate)
		t.Fatal("publishing 100k messages did not finish while a subscriber was stalled: the publisher is blocked")
	}
	t.Logf("published %d messages in %v (worst single publish %v) with one subscriber stalled", n, tm.total, tm.worst)
	if tm.total > 20*time.Second {
		t.Errorf("publishing took %v; want it bounded by the publisher's own work", tm.total)
	}
	close(gate)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "slow", slow.got(), 1, n)
	checkContiguous(t, "fast", fast.got(), 1, n)
	st := b.Stats()
	if st[0].Name != "slow" || st[0].MaxPending < n/2 || st[0].Pending != 0 || st[0].Delivered != n {
		t.Errorf("slow subscriber stats = %+v; want it to have queued ≥ %d while stalled and delivered all %d", st[0], n/2, n)
	}
}

func TestCloseDrainsPendingMessages(t *testing.T) {
	b := New()
	var r recorder
	if err := b.Subscribe("sleepy", func(m trace.Message) {
		if m.Seq%100 == 0 {
			time.Sleep(time.Millisecond)
		}
		r.deliver(m)
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 1000; i++ {
		if _, err := b.Publish(msg("ExecutionResult")); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "sleepy", r.got(), 1, 1000)
	if err := b.Close(); err != nil {
		t.Errorf("second Close = %v, want the first result (nil)", err)
	}
}

func TestSyncWaitsForDelivery(t *testing.T) {
	b := New()
	var r recorder
	if err := b.Subscribe("r", func(m trace.Message) { time.Sleep(10 * time.Microsecond); r.deliver(m) }); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		if _, err := b.Publish(msg("CorrectionSignal")); err != nil {
			t.Fatal(err)
		}
	}
	b.Sync()
	checkContiguous(t, "r after Sync", r.got(), 1, 300)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestClosedBusRefuses(t *testing.T) {
	b := New()
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(msg("PlanDirective")); !errors.Is(err, ErrClosed) {
		t.Errorf("Publish after Close = %v, want ErrClosed", err)
	}
	if _, err := b.PublishAt(5, msg("PlanDirective")); !errors.Is(err, ErrClosed) {
		t.Errorf("PublishAt after Close = %v, want ErrClosed", err)
	}
	if err := b.Subscribe("late", func(trace.Message) {}); !errors.Is(err, ErrClosed) {
		t.Errorf("Subscribe after Close = %v, want ErrClosed", err)
	}
}

func TestPublishAtKeepsSeqIncreasing(t *testing.T) {
	b := New()
	var r recorder
	if err := b.Subscribe("r", r.deliver); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		at      int64 // 0: Publish
		wantSeq int64
		wantErr string
	}{
		{at: 12, wantSeq: 12},
		{at: 0, wantSeq: 13},
		{at: 13, wantErr: "seq 13 does not increase (last published 13)"},
		{at: 7, wantErr: "seq 7 does not increase"},
		{at: 40, wantSeq: 40},
	}
	for i, st := range steps {
		var got trace.Message
		var err error
		if st.at == 0 {
			got, err = b.Publish(msg("PlanDirective"))
		} else {
			got, err = b.PublishAt(st.at, msg("PlanDirective"))
		}
		switch {
		case st.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), st.wantErr) {
				t.Errorf("step %d: err = %v, want it to contain %q", i, err, st.wantErr)
			}
		case err != nil:
			t.Errorf("step %d: %v", i, err)
		case got.Seq != st.wantSeq:
			t.Errorf("step %d: seq %d, want %d", i, got.Seq, st.wantSeq)
		}
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	want := []int64{12, 13, 40}
	if got := r.got(); len(got) != len(want) || got[0] != 12 || got[1] != 13 || got[2] != 40 {
		t.Errorf("delivered seqs %v, want %v", got, want)
	}
}

func TestUnroutableMessagesAreRefused(t *testing.T) {
	b := New()
	defer b.Close()
	for _, tc := range []struct {
		m    trace.Message
		want string
	}{
		{trace.Message{To: "R7", Type: "ReplanRequest"}, "has no from"},
		{trace.Message{From: "R4b", Type: "ReplanRequest"}, "has no to"},
		{trace.Message{From: "R4b", To: "R7"}, "has no type"},
	} {
		if _, err := b.Publish(tc.m); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Publish(%+v) = %v, want an error containing %q", tc.m, err, tc.want)
		}
	}
	if err := b.Subscribe("nil", nil); err == nil {
		t.Error("Subscribe with a nil function succeeded")
	}
}

func TestPanickingSubscriberIsReportedAndDeliveryGoesOn(t *testing.T) {
	b := New()
	var r recorder
	if err := b.Subscribe("fragile", func(m trace.Message) {
		if m.Seq == 2 {
			panic("boom")
		}
		r.deliver(m)
	}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := b.Publish(msg("FinalResult")); err != nil {
			t.Fatal(err)
		}
	}
	err := b.Close()
	if err == nil || !strings.Contains(err.Error(), `subscriber "fragile" panicked on seq 2 (FinalResult from R4b to R7): boom`) {
		t.Errorf("Close = %v, want the panic on seq 2 reported", err)
	}
	if got := r.got(); len(got) != 2 || got[0] != 1 || got[1] != 3 {
		t.Errorf("delivered %v, want [1 3]", got)
	}
	if st := b.Stats(); st[0].Panics != 1 {
		t.Errorf("Panics = %d, want 1", st[0].Panics)
	}
}

func TestLateSubscriberSeesOnlyLaterMessages(t *testing.T) {
	b := New()
	if _, err := b.Publish(msg("TaskSpec")); err != nil {
		t.Fatal(err)
	}
	var r recorder
	if err := b.Subscribe("late", r.deliver); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Publish(msg("TaskSpec")); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	checkContiguous(t, "late", r.got(), 2, 1)
}

func TestNewMessageSnapshotsThePayload(t *testing.T) {
	type payload struct {
		Tools []string `json:"tools"`
	}
	p := &payload{Tools: []string{"shell"}}
	m, err := NewMessage("R7", "R2", "PlanDirective", "t1", p)
	if err != nil {
		t.Fatal(err)
	}
	p.Tools[0] = "changed after publishing"
	if got := string(m.Payload); got != `{"tools":["shell"]}` {
		t.Errorf("payload = %s, want the snapshot taken by NewMessage", got)
	}
	if _, err := NewMessage("R7", "R2", "PlanDirective", "t1", make(chan int)); err == nil ||
		!strings.Contains(err.Error(), "encoding PlanDirective payload from R7 to R2") {
		t.Errorf("NewMessage(chan) = %v, want an encoding error naming the message", err)
	}
}

func TestQueueKeepsFIFOAndReusesChunks(t *testing.T) {
	var q queue
	const n = 3*chunkSize + 1
	for round := 0; round < 3; round++ {
		for i := 0; i < n; i++ {
			q.push(trace.Message{Seq: int64(i + 1), Payload: []byte("x")})
		}
		if round > 0 && q.nfree != 0 {
			t.Errorf("round %d: %d free chunks left after refilling, want 0 (all 4 reused)", round, q.nfree)
		}
		chain := q.takeAll()
		var want int64 = 1
		for c := chain; c != nil; c = c.next {
			for i := 0; i < c.n; i++ {
				if c.msgs[i].Seq != want {
					t.Fatalf("round %d: seq %d, want %d", round, c.msgs[i].Seq, want)
				}
				want++
			}
		}
		if want != n+1 || q.len != 0 {
			t.Fatalf("round %d: drained %d, len %d", round, want-1, q.len)
		}
		q.recycle(chain)
		if q.nfree != 4 && round == 0 {
			t.Errorf("after the first batch %d chunks are free, want 4", q.nfree)
		}
		for c := q.free; c != nil; c = c.next {
			if c.n != 0 || c.msgs[0].Payload != nil {
				t.Fatal("a recycled chunk still holds a message")
			}
		}
	}
}

// BenchmarkPublish is what the control loop pays per message: stamping and queueing for
// two subscribers (as many as the trace writer and the Auditor), delivery included
// (Close waits for it), with subscribers that do nothing.
func BenchmarkPublish(b *testing.B) {
	bs := New()
	for _, name := range []string{"trace", "R6"} {
		if err := bs.Subscribe(name, func(trace.Message) {}); err != nil {
			b.Fatal(err)
		}
	}
	m := msg("PlanDirective")
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := bs.Publish(m); err != nil {
			b.Fatal(err)
		}
	}
	if err := bs.Close(); err != nil {
		b.Fatal(err)
	}
}
