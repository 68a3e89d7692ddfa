package ggs

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// interleaved is a generated stream: tasks × 1–4 rounds each, in a random interleaving
// fixed by seed; a task's last round is an OutcomeSummary one time in three.
func interleaved(tasks int, seed uint64) []Message {
	rng := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	left := make([]int, tasks)
	var pending []int
	for i := range left {
		left[i] = 1 + rng.IntN(4)
		pending = append(pending, i)
	}
	var out []Message
	for len(pending) > 0 {
		k := rng.IntN(len(pending))
		i := pending[k]
		id := "t" + strconv.Itoa(i)
		left[i]--
		if left[i] == 0 {
			pending[k] = pending[len(pending)-1]
			pending = pending[:len(pending)-1]
			if rng.IntN(3) == 0 {
				out = append(out, Message{Outcome: &contract.OutcomeSummary{TaskID: id, Summary: "done"}})
				continue
			}
		}
		req := envRound(id, 1+rng.IntN(2), "shell:ls /"+id+"/"+strconv.Itoa(len(out)))
		req.ElapsedMS = int64(1000 * (1 + rng.IntN(60)))
		out = append(out, Message{Replan: req})
	}
	return out
}

// runStream runs msgs through a Filter and returns each line's output (nil when the
// line was refused) and each line's error.
func runStream(t *testing.T, msgs []Message, b Bound) (outs [][]byte, errs []error, evictions []Eviction) {
	t.Helper()
	s := newSolver(t, WithSessionOptions(engine.WithTrace(trace.Discard)))
	f := NewFilter(s, b)
	ctx := context.Background()
	for i, m := range msgs {
		n := i + 1
		o, err := f.Handle(ctx, n, m)
		var line []byte
		if err == nil {
			if line, err = AppendOutput(nil, o); err != nil {
				t.Fatal(err)
			}
		}
		outs, errs = append(outs, line), append(errs, err)
		evictions = append(evictions, f.Expire(n)...)
	}
	return outs, errs, evictions
}

// Over an interleaved stream of many tasks, a bounded Filter never decides on lost state:
// every line gives the output the same stream gives with no limit, byte for byte, or is
// refused with an EvictedError naming its task and the line after which it was evicted.
// Every message of an evicted task after its eviction is refused. With the memory of
// evictions itself bounded, an id it dropped is reported, and only such ids may start over.
func TestFilterInterleavedNeverDecidesOnLostState(t *testing.T) {
	tasks := 20_000
	if testing.Short() {
		tasks = 3_000
	}
	msgs := interleaved(tasks, 25)
	want, wantErrs, none := runStream(t, msgs, Bound{})
	if len(none) != 0 {
		t.Fatalf("no limit evicted %v", none[0])
	}
	for i, err := range wantErrs {
		if err != nil {
			t.Fatalf("line %d, no limit: %v", i+1, err)
		}
	}
	for _, b := range []Bound{{MaxOpen: 200}, {MaxOpen: 200, IdleLines: 1500}, {MaxOpen: 200, MaxEvicted: 500}} {
		got, errs, evictions := runStream(t, msgs, b)
		evictedAt := map[string]int{}  // id → line, while remembered
		forgotten := map[string]bool{} // ids whose eviction was dropped from memory
		ev := 0
		same, refused, afresh := 0, 0, 0
		for i := range msgs {
			n, id := i+1, msgs[i].TaskID()
			err := errs[i]
			var gone *EvictedError
			switch {
			case errors.As(err, &gone):
				if at, ok := evictedAt[id]; !ok || gone.TaskID != id || gone.Line != at {
					t.Fatalf("%+v line %d: %v; the task was evicted at line %d (%v)", b, n, err, at, ok)
				}
				refused++
			case err != nil:
				t.Fatalf("%+v line %d: %v", b, n, err)
			case bytes.Equal(got[i], want[i]):
				same++
			case forgotten[id]:
				afresh++ // dropped from the memory of evictions, and said so: a new task
			default:
				t.Fatalf("%+v line %d: task %s decided on lost state:\n got %s\nwant %s", b, n, id, got[i], want[i])
			}
			if _, ok := evictedAt[id]; ok && err == nil {
				t.Fatalf("%+v line %d: a message for evicted task %s was decided", b, n, id)
			}
			for ; ev < len(evictions) && evictions[ev].Line == n; ev++ {
				e := evictions[ev]
				if e.Reason == EvictionForgotten {
					if evictedAt[e.TaskID] != e.EvictedAt {
						t.Fatalf("%+v line %d: forgot %s evicted at %d, remembered %d", b, n, e.TaskID, e.EvictedAt, evictedAt[e.TaskID])
					}
					delete(evictedAt, e.TaskID)
					forgotten[e.TaskID] = true
					continue
				}
				evictedAt[e.TaskID] = n
			}
		}
		if ev != len(evictions) {
			t.Fatalf("%+v: eviction %v out of line order", b, evictions[ev])
		}
		if refused == 0 || same+refused+afresh != len(msgs) || (b.MaxEvicted == 0) != (afresh == 0) {
			t.Errorf("%+v: %d lines: %d as with no limit, %d refused, %d started over after a reported forgetting", b, len(msgs), same, refused, afresh)
		}
		t.Logf("%+v: %d lines: %d as with no limit, %d refused, %d started over after a reported forgetting", b, len(msgs), same, refused, afresh)
	}
}

// FuzzFilterBound drives a Filter with a stream of task ids drawn from the input (a small
// alphabet, so ids come back), under bounds drawn from it too: the open tasks and the
// remembered evictions never exceed their bounds, and a message for a task evicted and
// still remembered is refused, naming the line after which it was evicted.
func FuzzFilterBound(f *testing.F) {
	f.Add([]byte{1, 1, 0, 0, 1, 2, 0, 3, 1})
	f.Add([]byte{2, 0, 1, 2, 3, 0, 1, 2, 3, 4, 0})
	f.Add([]byte{1, 0, 4, 0, 0, 0, 1, 1, 1, 2, 2})
	s := newSolver(f, WithSessionOptions(engine.WithTrace(trace.Discard)))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 || len(data) > 400 {
			return
		}
		b := Bound{MaxOpen: int(data[0] % 4), IdleLines: int(data[1] % 5), MaxEvicted: int(data[2] % 3)}
		for id := range s.tasks.tasks {
			delete(s.tasks.tasks, id)
		}
		flt := NewFilter(s, b)
		gone := map[string]int{}
		for i, c := range data[3:] {
			n := i + 1
			id := "t" + strconv.Itoa(int(c%8))
			var m Message
			if c >= 240 {
				m = Message{Outcome: &contract.OutcomeSummary{TaskID: id, Summary: "done"}}
			} else {
				m = Message{Replan: envRound(id, 1+int(c/8)%2, "shell:ls /"+strconv.Itoa(n))}
			}
			_, err := flt.Handle(context.Background(), n, m)
			var ee *EvictedError
			at, remembered := gone[id]
			switch {
			case remembered && (!errors.As(err, &ee) || ee.Line != at || ee.TaskID != id):
				t.Fatalf("line %d: task %s evicted after line %d: got %v", n, id, at, err)
			case !remembered && err != nil:
				t.Fatalf("line %d: %v", n, err)
			}
			for _, e := range flt.Expire(n) {
				if e.Reason == EvictionForgotten {
					delete(gone, e.TaskID)
				} else {
					gone[e.TaskID] = n
				}
			}
			if (b.MaxOpen > 0 && flt.Open() > b.MaxOpen) || (b.MaxEvicted > 0 && flt.Evicted() > b.MaxEvicted) || flt.Evicted() != len(gone) {
				t.Fatalf("line %d: %d open, %d evictions remembered (want %d), bound %+v", n, flt.Open(), flt.Evicted(), len(gone), b)
			}
		}
	})
}
