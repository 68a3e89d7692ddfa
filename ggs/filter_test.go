package ggs

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// Each line of a stream is a task id (a ReplanRequest for it), "" (a line with no
// message: blank or unreadable), or "bad:<id>" (a message the Solver rejects). The table
// gives, per stream, the evictions and each round's number.
func TestFilterEvicts(t *testing.T) {
	cases := []struct {
		name    string
		bound   Bound
		lines   []string
		evicted []string // "line:task:reason"
		rounds  string   // round of each message's output, "-" for none, "x" refused as evicted
	}{
		{"within the bound nothing is evicted", Bound{MaxOpen: 2},
			[]string{"a", "b", "a", "b"}, nil, "1 1 2 2"},
		{"the least recently used goes first", Bound{MaxOpen: 2},
			[]string{"a", "b", "a", "c", "d"}, []string{"4:b:lru", "5:a:lru"}, "1 1 2 1 1"},
		{"an evicted task is refused, not decided afresh", Bound{MaxOpen: 1},
			[]string{"a", "a", "b", "a", "a"}, []string{"3:a:lru"}, "1 2 1 x x"},
		{"past the memory of evictions, the dropped id is reported and starts afresh", Bound{MaxOpen: 1, MaxEvicted: 1},
			[]string{"a", "b", "c", "a"}, []string{"2:a:lru", "3:b:lru", "3:a:forgotten@2", "4:c:lru", "4:b:forgotten@3"}, "1 1 1 1"},
		{"no limit", Bound{},
			[]string{"a", "b", "c", "d", "", "", "", "a"}, nil, "1 1 1 1 - - - 2"},
		{"idle lines count every input line", Bound{IdleLines: 2},
			[]string{"a", "b", "", "b", "a"}, []string{"4:a:idle"}, "1 1 - 2 x"},
		{"idle exactly the limit stays", Bound{IdleLines: 2},
			[]string{"a", "", "", "a"}, nil, "1 - - 2"},
		{"both limits, count first", Bound{MaxOpen: 2, IdleLines: 3},
			[]string{"a", "b", "c", "", "", "", "c"}, []string{"3:a:lru", "6:b:idle"}, "1 1 1 - - - 2"},
		{"a rejected first round opens nothing", Bound{MaxOpen: 1},
			[]string{"a", "bad:b", "a"}, nil, "1 - 2"},
		{"a rejected later round keeps the task", Bound{MaxOpen: 1},
			[]string{"a", "bad:a", "a"}, nil, "1 - 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSolver(t)
			f := NewFilter(s, tc.bound)
			var evicted, rounds []string
			for i, l := range tc.lines {
				n := i + 1
				switch {
				case l == "":
					rounds = append(rounds, "-")
				case strings.HasPrefix(l, "bad:"):
					req := envRound(strings.TrimPrefix(l, "bad:"), 1, "shell:ls")
					req.ElapsedMS = -1
					if _, err := f.Handle(context.Background(), n, Message{Replan: req}); err == nil {
						t.Fatalf("line %d: a negative elapsed_ms was accepted", n)
					}
					rounds = append(rounds, "-")
				default:
					out, err := f.Handle(context.Background(), n, Message{Replan: envRound(l, 1, "shell:ls /x"+strconv.Itoa(n))})
					var gone *EvictedError
					switch {
					case errors.As(err, &gone):
						if gone.TaskID != l || gone.Line >= n {
							t.Fatalf("line %d: %v", n, err)
						}
						rounds = append(rounds, "x")
					case err != nil:
						t.Fatalf("line %d: %v", n, err)
					default:
						rounds = append(rounds, strconv.Itoa(out.Signals.Round))
					}
				}
				for _, e := range f.Expire(n) {
					ev := fmt.Sprintf("%d:%s:%s", e.Line, e.TaskID, e.Reason)
					if e.Reason == EvictionForgotten {
						ev += "@" + strconv.Itoa(e.EvictedAt)
					}
					evicted = append(evicted, ev)
				}
				if f.Open() != len(s.OpenTasks()) {
					t.Fatalf("line %d: the filter tracks %d tasks, the solver holds %v", n, f.Open(), s.OpenTasks())
				}
			}
			if !slices.Equal(evicted, tc.evicted) {
				t.Errorf("evicted %q, want %q", evicted, tc.evicted)
			}
			if got := strings.Join(rounds, " "); got != tc.rounds {
				t.Errorf("rounds %q, want %q", got, tc.rounds)
			}
		})
	}
}

// A task closed by a terminal directive leaves the filter with it and is never evicted.
func TestFilterForgetsClosedTasks(t *testing.T) {
	f := NewFilter(newSolver(t), Bound{MaxOpen: 1})
	ctx := context.Background()
	if _, err := f.Handle(ctx, 1, Message{Replan: envRound("a", 1, "shell:ls")}); err != nil {
		t.Fatal(err)
	}
	out, err := f.Handle(ctx, 2, Message{Outcome: &contract.OutcomeSummary{TaskID: "a", Summary: "done"}})
	if err != nil || out.Final == nil {
		t.Fatalf("want a FinalResult, got %+v, %v", out, err)
	}
	if ev := f.Expire(2); len(ev) != 0 || f.Open() != 0 {
		t.Fatalf("after the terminal round: evicted %v, %d open", ev, f.Open())
	}
}

// 200,000 task ids, each opened and never closed, through a filter bounded to 1,000: the
// solver never holds more than the bound, and the heap after the last line is about what
// it was after the first 20,000.
func TestFilterMemoryStaysFlat(t *testing.T) {
	n := 200_000
	if testing.Short() {
		n = 40_000
	}
	s := newSolver(t, WithSessionOptions(engine.WithTrace(trace.Discard)))
	f := NewFilter(s, Bound{MaxOpen: 1000, MaxEvicted: 10_000})
	ctx := context.Background()
	req := envRound("", 1, "shell:ls /var/log/nginx → No such file or directory")
	var early uint64
	for i := 1; i <= n; i++ {
		req.TaskID = "task-" + strconv.Itoa(i)
		if _, err := f.Handle(ctx, i, Message{Replan: req}); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		ev := f.Expire(i)
		if i > 1000 && (len(ev) < 1 || ev[0].TaskID != "task-"+strconv.Itoa(i-1000)) {
			t.Fatalf("line %d: evicted %v, want task-%d", i, ev, i-1000)
		}
		// Past 10,000 evictions remembered, each eviction forgets the oldest, and says so.
		if i > 11_000 && (len(ev) != 2 || ev[1].Reason != EvictionForgotten || ev[1].TaskID != "task-"+strconv.Itoa(i-11_000)) {
			t.Fatalf("line %d: evicted %v, want task-%d forgotten", i, ev, i-11_000)
		}
		if len(s.tasks.tasks) > 1000 || f.Open() > 1000 || len(f.byID) > 1000 || f.Evicted() > 10_000 || len(f.gone) > 10_000 {
			t.Fatalf("line %d: %d tasks held, %d tracked, %d evictions remembered: more than the bounds", i, len(s.tasks.tasks), f.Open(), f.Evicted())
		}
		if i == n/10 {
			early = heapInUse()
		}
	}
	// Generous: the bound keeps the state at ~1,000 tasks; without it 200,000 tasks hold
	// tens of megabytes.
	if late := heapInUse(); late > 2*early+8<<20 {
		t.Errorf("heap grew from %d KB after %d lines to %d KB after %d", early>>10, n/10, late>>10, n)
	}
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// BenchmarkGGSFilterManyTasks is one round per new task_id through a filter bounded to
// 10,000 open tasks and 100,000 remembered evictions, past the bound: a round, and one
// eviction (and, past 110,000 ids, one eviction forgotten).
func BenchmarkGGSFilterManyTasks(b *testing.B) {
	s := newSolver(b, WithSessionOptions(engine.WithTrace(trace.Discard)))
	f := NewFilter(s, Bound{MaxOpen: DefaultMaxOpenTasks, MaxEvicted: DefaultMaxEvictedTasks})
	ctx := context.Background()
	req := envRound("", 1, "shell:ls /var/log/nginx → No such file or directory")
	// Every id is new: an evicted id that came back would be refused.
	ids := make([]string, b.N)
	for i := range ids {
		ids[i] = "task-" + strconv.Itoa(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req.TaskID = ids[i]
		if _, err := f.Handle(ctx, i+1, Message{Replan: req}); err != nil {
			b.Fatal(err)
		}
		f.Expire(i + 1)
	}
	if f.Open() > DefaultMaxOpenTasks {
		b.Fatalf("%d tasks open", f.Open())
	}
}
