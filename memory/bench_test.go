package memory

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

func TestMain(m *testing.M) {
	code := m.Run()
	benchStore.cleanup()
	os.Exit(code)
}

func BenchmarkMemoryWrite(b *testing.B) {
	s, err := OpenLevelDB(b.TempDir(), Options{Clock: newClock(), Timer: newManualTimer()})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	w, _ := s.WriterFor(RoleGGS)
	ms := make([]contract.Megram, 1024)
	for i := range ms {
		ms[i] = burstMegram(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		w.Write(ms[i%len(ms)])
	}
	if err := s.Flush(context.Background()); err != nil {
		b.Fatal(err)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	if st := s.Stats(); st.Written != int64(b.N) {
		b.Fatalf("%d of %d written: %v", st.Written, b.N, s.Err())
	}
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "writes/s")
}

// The shared store of the query and Dreamer benchmarks: 1,000,000 Megrams, 10,000 of them
// on the hot pair, the rest over 9,900 pairs of 100 entries with mixed outcomes spread
// over 120 days, plus C entries on 1 pair in 10. Built once per process, on first use.
const (
	benchTotal    = 1_000_000
	benchHot      = 10_000
	benchPairSize = 100
	hotSpace      = "tool:go"
	hotEntity     = "path:./..."
)

type sharedBenchStore struct {
	once sync.Once
	dir  string // parent temp dir
	base string // the built store, closed
	err  error
	svc  *Service // the base opened for queries
}

var benchStore sharedBenchStore

func (bs *sharedBenchStore) cleanup() {
	if bs.svc != nil {
		bs.svc.Close()
	}
	if bs.dir != "" {
		os.RemoveAll(bs.dir)
	}
}

var benchStates = []Quantum{
	{"abandon", 0.95, -1, 0.05}, {"accept", 0.90, 1, 0.05}, {"change_approach", 0.85, -1, 0.05},
	{"success", 0.80, 1, 0.05}, {"break_symmetry", 0.75, 1, 0.05}, {"change_path", 0.30, 0, 0.2}, {"refine", 0.10, 0.5, 0.5},
}

func benchBase(b *testing.B) string {
	benchStore.once.Do(func() {
		benchStore.dir, benchStore.err = os.MkdirTemp("", "spine-memory-bench-")
		if benchStore.err != nil {
			return
		}
		benchStore.base = filepath.Join(benchStore.dir, "base")
		start := time.Now()
		benchStore.err = buildBenchStore(benchStore.base)
		b.Logf("built the %d-megram store in %v", benchTotal, time.Since(start))
	})
	if benchStore.err != nil {
		b.Fatal(benchStore.err)
	}
	return benchStore.base
}

func buildBenchStore(dir string) error {
	be, err := openLevelBackend(dir, StorageOptions{NoSync: true, WriteBufferBytes: 64 << 20})
	if err != nil {
		return err
	}
	defer be.close()
	if err := benchRecords(benchTotal, func(puts []Record) error { return be.apply(&change{puts: puts}) }); err != nil {
		return err
	}
	// Settle the layout as a long-running store would have it.
	return be.compact()
}

// benchRecords generates the shared store's records, in batches of 10,000, for a store of
// total Megrams: total/100 on the hot pair, the rest in pairs of benchPairSize.
func benchRecords(total int, batch func([]Record) error) error {
	rng := rand.New(rand.NewPCG(1, 2))
	ids := &SequentialIDs{Prefix: "b"}
	puts := make([]Record, 0, 10_000)
	add := func(space, entity string, q Quantum, level string, age time.Duration) error {
		at := t0.Add(-age)
		puts = append(puts, Record{Megram: contract.Megram{ID: ids.NewID(), Level: level, CreatedAt: at, LastRecalledAt: at,
			Space: space, Entity: entity, Content: "benchmark " + q.State, State: q.State, F: q.F, Sigma: q.Sigma, K: q.K}, Origin: OriginGGS})
		if len(puts) == cap(puts) {
			err := batch(puts)
			puts = puts[:0]
			return err
		}
		return nil
	}
	age := func() time.Duration { return time.Duration(rng.Int64N(int64(120 * Day))) }
	hot := total / 100
	for i := 0; i < hot; i++ {
		if err := add(hotSpace, hotEntity, benchStates[rng.IntN(len(benchStates))], contract.LevelM, age()); err != nil {
			return err
		}
	}
	for p := 0; p < (total-hot)/benchPairSize; p++ {
		space, entity := ToolSpace(fmt.Sprintf("tool%03d", p%97)), PathEntity(fmt.Sprintf("/srv/data/%05d", p))
		// A third of the pairs mostly succeed, a third mostly fail, a third are mixed.
		bias := p % 3
		for i := 0; i < benchPairSize; i++ {
			q := benchStates[rng.IntN(len(benchStates))]
			switch {
			case bias == 0 && rng.IntN(4) > 0:
				q = benchStates[3]
			case bias == 1 && rng.IntN(4) > 0:
				q = benchStates[0]
			}
			level := contract.LevelM
			if i == 0 && p%10 == 0 {
				level, q = contract.LevelC, Quantum{KindBestPractice, 1, 1, 0}
			}
			if err := add(space, entity, q, level, age()); err != nil {
				return err
			}
		}
	}
	if len(puts) == 0 {
		return nil
	}
	return batch(puts)
}

func BenchmarkQueryMK(b *testing.B) {
	b.Run(fmt.Sprintf("megrams=%d", benchHot), func(b *testing.B) {
		base := benchBase(b)
		if benchStore.svc == nil {
			s, err := OpenLevelDB(base, Options{Clock: newClock(), Timer: newManualTimer()})
			if err != nil {
				b.Fatal(err)
			}
			benchStore.svc = s
		}
		s := benchStore.svc
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			p, err := s.QueryMK(ctx, hotSpace, hotEntity)
			if err != nil {
				b.Fatal(err)
			}
			if p.Attention <= 0 {
				b.Fatalf("no potentials: %+v", p)
			}
		}
	})
}

// BenchmarkDreamerPass runs one pass over the shared store on each backend: LevelDB over
// the 1,000,000 Megrams (a copy of the store per pass) and the in-memory twin, and
// megrams=100000 over a store made the same way, for quick runs.
func BenchmarkDreamerPass(b *testing.B) {
	for _, total := range []int{100_000, benchTotal} {
		b.Run(fmt.Sprintf("leveldb/megrams=%d", total), func(b *testing.B) { benchDreamLevelDB(b, total) })
		b.Run(fmt.Sprintf("inmemory/megrams=%d", total), func(b *testing.B) { benchDreamInMemory(b, total) })
	}
}

func dreamBenchOptions() Options {
	return Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "d"}, Timer: newManualTimer(), Distiller: TemplateDistillerForTests{}}
}

func benchDreamLevelDB(b *testing.B, total int) {
	var base string
	if total == benchTotal {
		base = benchBase(b)
		if benchStore.svc != nil { // the base must be closed to be copied
			benchStore.svc.Close()
			benchStore.svc = nil
		}
	} else {
		base = filepath.Join(b.TempDir(), "base")
		be, err := openLevelBackend(base, StorageOptions{NoSync: true, WriteBufferBytes: 64 << 20})
		if err != nil {
			b.Fatal(err)
		}
		err = benchRecords(total, func(puts []Record) error { return be.apply(&change{puts: puts}) })
		if err == nil {
			err = be.compact()
		}
		if cerr := be.close(); err == nil {
			err = cerr
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	tmp := b.TempDir()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		dir := filepath.Join(tmp, fmt.Sprintf("pass-%d", i))
		if err := copyDir(base, dir); err != nil {
			b.Fatal(err)
		}
		s, err := OpenLevelDB(dir, dreamBenchOptions())
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		rep, err := s.DreamOnce(context.Background())
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.Logf("pass: %+v", rep)
		}
		s.Close()
		os.RemoveAll(dir)
		b.StartTimer()
	}
}

func benchDreamInMemory(b *testing.B, total int) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		s, err := NewInMemory(dreamBenchOptions())
		if err != nil {
			b.Fatal(err)
		}
		if err := benchRecords(total, func(puts []Record) error { return s.be.apply(&change{puts: puts}) }); err != nil {
			b.Fatal(err)
		}
		runtime.GC() // the garbage of building the store is not the pass's
		b.StartTimer()
		rep, err := s.DreamOnce(context.Background())
		b.StopTimer()
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			b.Logf("pass: %+v", rep)
		}
		s.Close()
		b.StartTimer()
	}
}

func copyDir(src, dst string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	entries, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.Name() == "LOCK" {
			continue
		}
		in, err := os.Open(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		out, err := os.Create(filepath.Join(dst, e.Name()))
		if err != nil {
			in.Close()
			return err
		}
		_, err = io.Copy(out, in)
		in.Close()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
