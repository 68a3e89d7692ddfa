package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// benchRules builds a rule set of n rules over a signals fact and a many-kind of items.
// Rule i is true when signals.x is above its own threshold, so about half the rules are
// in each cycle's conflict set.
func benchRules(b *testing.B, n int) *ruleset.RuleSet {
	b.Helper()
	var sb strings.Builder
	sb.WriteString("name: bench\nparams: {floor: 0.5}\nfacts:\n  signals: {fields: {x: float, n: int}}\n  item: {many: true, fields: {v: float}}\n")
	sb.WriteString("objectives:\n  - {name: go}\nrules:\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "  - {name: r%04d, salience: %d, when: 'signals.x > %d.0 && signals.n >= 0 && params.floor < 1', then: {objective: go}}\n", i, i%7, i%100)
	}
	rs, err := LoadRules("bench.yaml", []byte(sb.String()))
	if err != nil {
		b.Fatal(err)
	}
	return rs
}

// BenchmarkAgendaCycle measures one full cycle (evaluate every rule, order the conflict
// set, fire one) with 100 facts in working memory and a discarding trace sink. A fact
// the rules read changes before each cycle, so refraction never empties the agenda.
func BenchmarkAgendaCycle(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			rs := benchRules(b, n)
			s := NewSession(rs, WithTrace(trace.Discard), WithMaxFirings(1<<62))
			for i := 0; i < 99; i++ {
				if _, err := s.Assert("item", fmt.Sprintf("i%03d", i), ruleset.Fields{"v": float64(i)}); err != nil {
					b.Fatal(err)
				}
			}
			type sig struct {
				X float64 `json:"x"`
				N int     `json:"n"`
			}
			if _, err := s.Assert("signals", "", sig{X: 50}); err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			// The host's own variable, given by pointer and never handed back: the
			// way a host such as the GGS decider feeds a fact every cycle.
			cur := sig{X: 50}
			for i := 0; i < b.N; i++ {
				cur.N = i
				if err := s.Set("signals", "", &cur); err != nil {
					b.Fatal(err)
				}
				if res, err := s.Cycle(ctx); err != nil || res.Fired == "" {
					b.Fatal(err, res)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/rule")
		})
	}
}

// BenchmarkTraceAppend measures one event appended to a file sink through the tracer:
// batched (the sink writes when its 64 KiB buffer fills and at cycle boundaries, as a
// replay writes), and flushed after it as a live run flushes after each exchange — every
// event (the worst case) or one in ten (a round's exchanges among its other events).
func BenchmarkTraceAppend(b *testing.B) {
	for _, c := range []struct {
		name  string
		every int // flush after one event in every; 0: batched
	}{{"batched", 0}, {"exchange-every-10", 10}, {"exchange-every-event", 1}} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "trace.jsonl")
			sink, err := trace.CreateFileSink(path)
			if err != nil {
				b.Fatal(err)
			}
			defer sink.Close()
			tr := tracer{sink: sink, clock: clock.NewStep(defaultOptions().clock.Now(), 1)}
			body := trace.Transition{From: StateSelect, To: StateAct, Event: evSelected, Iteration: 3}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				tr.emit(trace.KindTransition, body)
				if c.every > 0 && i%c.every == 0 {
					tr.flush()
				}
			}
			b.StopTimer()
			if tr.err != nil {
				b.Fatal(tr.err)
			}
			if err := sink.Flush(); err != nil {
				b.Fatal(err)
			}
			if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
				b.Fatal("nothing written", err)
			}
		})
	}
}
