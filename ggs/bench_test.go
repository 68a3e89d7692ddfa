package ggs

import (
	"context"
	"testing"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/trace"
)

// benchSignals are rounds that land in different macro-states, decided in turn.
var benchSignals = []Signals{
	{Round: 1, D: 0.5, P: 0, Omega: 0.05, L: 0.32, Grad: 0},                // change_path
	{Round: 2, D: 1, P: 0, Omega: 0.28, L: 0.71, Grad: 0.39, Worsening: 1}, // refine
	{Round: 3, D: 1, P: 1, Omega: 0.48, L: 0.94, Grad: 0.23, Worsening: 2}, // abandon (Law 2)
	{Round: 2, D: 0.8, P: 0.75, Omega: 0.3, L: 0.75, Grad: 0.02},           // break_symmetry
}

// BenchmarkGGSDecide is one decision through the spine: the signals fact updated, one
// agenda cycle over rules/ggs.yaml, the macro-state read back. No I/O.
func BenchmarkGGSDecide(b *testing.B) {
	d, err := NewRulesDecider(loadRules(b))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dec, err := d.Decide(ctx, benchSignals[i%len(benchSignals)])
		if err != nil || dec.Directive == "" {
			b.Fatal(dec, err)
		}
	}
}

// BenchmarkGGSDecideHandCoded is the same decision as a plain Go switch: the floor.
func BenchmarkGGSDecideHandCoded(b *testing.B) {
	p := loadParams(b)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if DecideHandCoded(p, benchSignals[i%len(benchSignals)]) == "" {
			b.Fatal("no decision")
		}
	}
}

// BenchmarkGGSRound is a whole round from a parsed ReplanRequest to a PlanDirective, with
// the trace going to a discarding sink. Rounds alternate between a task's first round and
// its second (∇L, accumulated targets); the task is then forgotten so that every round
// yields a PlanDirective.
func BenchmarkGGSRound(b *testing.B) {
	s, err := New(loadRules(b), WithSessionOptions(engine.WithTrace(trace.Discard)))
	if err != nil {
		b.Fatal(err)
	}
	first := envRound("bench", 1, "shell:ls /var/log/nginx → No such file or directory", "read_file:/var/log/nginx/error.log → no such file")
	first.ElapsedMS = 42000
	second := envRound("bench", 2, "shell:ls /opt/nginx/logs → No such file or directory")
	second.ElapsedMS = 61000
	reqs := []*contract.ReplanRequest{first, second}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, err := s.HandleReplan(ctx, reqs[i%2])
		if err != nil || out.Directive == nil {
			b.Fatal(out, err)
		}
		if i%2 == 1 {
			delete(s.tasks.tasks, "bench")
		}
	}
}
