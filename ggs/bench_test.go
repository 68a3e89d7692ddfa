package ggs

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

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

// benchStream is BenchmarkGGSFilter's input.
func benchStream() []byte {
	var b bytes.Buffer
	if _, err := genStream(&b, benchTasks, benchSeed); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// BenchmarkGGSFilter is spine ggs's filter over a generated stream of about 100 MB
// (TestWriteStream writes the same file for scripts/ggs-floor.py): read from a file,
// decode, decide, encode, write, with the default bounds. One op is the whole stream.
// The stream is not held in memory, so the collector works as it does in spine ggs.
func BenchmarkGGSFilter(b *testing.B) {
	path := filepath.Join(b.TempDir(), "stream.jsonl")
	in := benchStream()
	msgs := bytes.Count(in, []byte("\n"))
	if err := os.WriteFile(path, in, 0o644); err != nil {
		b.Fatal(err)
	}
	size := int64(len(in))
	in = nil
	rs := loadRules(b)
	b.SetBytes(size)
	b.ReportAllocs()
	runtime.GC()
	b.ResetTimer()
	cpu := cpuTime()
	for i := 0; i < b.N; i++ {
		s, err := New(rs)
		if err != nil {
			b.Fatal(err)
		}
		f := NewFilter(s, Bound{MaxOpen: DefaultMaxOpenTasks, MaxEvicted: DefaultMaxEvictedTasks})
		file, err := os.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		bad := func(line int, err error) { b.Fatalf("line %d: %v", line, err) }
		err = f.Run(context.Background(), file, io.Discard, StreamHooks{Bad: bad})
		file.Close()
		if err != nil {
			b.Fatal(err)
		}
	}
	reportStream(b, msgs, cpu)
}

// BenchmarkGGSFilterDecodeOnly is the decoding alone, line by line, over the stream held
// in memory: the part of BenchmarkGGSFilter that json.loads in scripts/ggs-floor.py
// compares with. Beside the
// filter's decoder: encoding/json's two passes (the envelope, then the payload), as
// spine ggs decoded before, and a single pass with github.com/go-json-experiment/json.
func BenchmarkGGSFilterDecodeOnly(b *testing.B) {
	in := benchStream()
	for _, c := range []struct {
		name   string
		decode func([]byte) (Message, error)
	}{
		{"scan", new(messageDecoder).decode},
		{"scan-shared", (&messageDecoder{scan: reportScan{sh: lineShare{on: true}}}).decode},
		{"encoding-json", decodeEnvelope},
		{"json-experiment", new(v2Decoder).decode},
	} {
		b.Run(c.name, func(b *testing.B) {
			msgs := bytes.Count(in, []byte("\n"))
			b.SetBytes(int64(len(in)))
			b.ReportAllocs()
			b.ResetTimer()
			cpu := cpuTime()
			for i := 0; i < b.N; i++ {
				for rest := in; len(rest) > 0; {
					line, after, _ := bytes.Cut(rest, []byte("\n"))
					rest = after
					if _, err := c.decode(line); err != nil {
						b.Fatal(err)
					}
				}
			}
			reportStream(b, msgs, cpu)
		})
	}
}

// reportStream reports a stream benchmark's messages per second, and the CPU time of an
// op (all threads, the collector's included), the figure to compare with the CPU time
// scripts/ggs-floor.py prints when the machine is shared.
func reportStream(b *testing.B, msgs int, cpu0 time.Duration) {
	b.ReportMetric(float64(msgs)*float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
	b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
