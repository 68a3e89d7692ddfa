package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/agentspine/spine/spine/trace"
)

// fanOut journals from several goroutines during its call, as an effector that runs
// tools in parallel does.
type fanOut struct{ finishing }

func (f *fanOut) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	j := JournalFrom(ctx)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j.Record(Exchange{Name: fmt.Sprintf("tool:%d", i), Request: i})
		}()
	}
	wg.Wait()
	j.Message(trace.Message{Type: "note", From: "R3", To: "R7"})
	return Construct{ID: "c"}, nil
}

// TestJournalSeqsWithoutATrace: a run whose sink discards every event gives the
// journal the seqs a written trace gives it, also when the effector journals from
// several goroutines, and ends at the same seq.
func TestJournalSeqsWithoutATrace(t *testing.T) {
	rs, err := LoadRules("finish.yaml", []byte(finishRules))
	if err != nil {
		t.Fatal(err)
	}
	run := func(sink trace.Sink) ([]int64, int64) {
		var mu sync.Mutex
		var seqs []int64
		eng := NewEngine(rs, &fanOut{}, WithTrace(sink), WithRunID("seqs"),
			WithJournalTap(func(seq int64, _ string, _ any) {
				mu.Lock()
				defer mu.Unlock()
				seqs = append(seqs, seq)
			}))
		if _, err := eng.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		slices.Sort(seqs)
		return seqs, eng.sess.tracer.count()
	}
	written, last := run(&trace.MemorySink{})
	discarded, lastDiscarded := run(trace.Discard)
	if len(written) != 5 || !slices.Equal(written, discarded) || last != lastDiscarded {
		t.Fatalf("journal seqs %v (last %d) with a trace, %v (last %d) without", written, last, discarded, lastDiscarded)
	}
	for i := 1; i < len(written); i++ {
		if written[i] != written[i-1]+1 {
			t.Fatalf("journal seqs %v: want consecutive", written)
		}
	}
}
