package taskrun

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/memory"
	"github.com/agentspine/spine/spine/trace"
)

// The answers to a corrupt memory store (Config.MemoryCorrupt).
const (
	MemoryCorruptRefuse = "refuse" // refuse the run (the default)
	MemoryCorruptSkip   = "skip"   // run without memory, with a warning
)

// openMemory opens the run's store, checking every table, and refuses a corrupt one
// with what to do about it; with MemoryCorruptSkip it warns and returns nil instead.
func openMemory(cfg *Config, d memory.Distiller) (*memory.Service, error) {
	mem, err := memory.OpenLevelDB(cfg.MemoryDir, memory.Options{Clock: clock.System{}, Distiller: d,
		Storage: memory.StorageOptions{CheckTables: true}})
	if !memory.IsCorrupt(err) {
		return mem, err
	}
	if cfg.MemoryCorrupt == MemoryCorruptSkip {
		cfg.Warn(fmt.Sprintf("%v; running WITHOUT memory (--memory-corrupt=skip): nothing is read from or written to it", err))
		return nil, nil
	}
	return nil, fmt.Errorf("%w\n  see all of it:  spine memory verify --db %s\n  repair it:      spine memory repair --db %s (keeps a copy of the store as it is)\n  or run without memory: --memory-corrupt=skip", err, cfg.MemoryDir, cfg.MemoryDir)
}

// memoryWrites follows the Megrams GGS sends to memory in one run, and writes those
// that did not reach the store into the trace after the halt.
type memoryWrites struct {
	ctx   context.Context
	dir   string
	tally *memory.WriteTally
	rep   *memory.TallyReport
}

// epilogue waits for the run's writes to be committed or failed, then records the
// failed ones (trace.KindMemoryLost). A replay writes the recorded event again.
func (m *memoryWrites) epilogue(emit func(kind string, body any)) {
	rep := m.tally.Report(context.WithoutCancel(m.ctx))
	m.rep = &rep
	if rep.Lost() == 0 {
		return
	}
	ev := trace.MemoryLost{Store: m.dir, Sent: rep.Sent, Stored: rep.Durable}
	for _, f := range rep.Failed {
		ev.Lost = append(ev.Lost, trace.MemoryLostItem{ID: f.ID, Error: f.Error})
	}
	for i := 0; i < rep.Pending; i++ {
		ev.Lost = append(ev.Lost, trace.MemoryLostItem{Error: "not confirmed when the run ended"})
	}
	emit(trace.KindMemoryLost, ev)
}

// outcome is the epilogue's report, or for a run that ended before its epilogue, the
// tally's now (then in no trace).
func (m *memoryWrites) outcome() *memory.TallyReport {
	if m.rep == nil {
		rep := m.tally.Report(context.WithoutCancel(m.ctx))
		m.rep = &rep
	}
	return m.rep
}

// bothEpilogues runs a, then b.
func bothEpilogues(a, b func(emit func(string, any))) func(emit func(string, any)) {
	return func(emit func(string, any)) {
		a(emit)
		b(emit)
	}
}

// flushForDream waits for the queue before the Dreamer's pass. Lost writes do not stop
// the pass: the run's own are in the trace and Result.MemoryWrites, and the pass counts
// the store's (DreamReport.LostWrites).
func flushForDream(ctx context.Context, mem *memory.Service) error {
	err := mem.Flush(ctx)
	var we *memory.WriteError
	if errors.As(err, &we) {
		return nil
	}
	return err
}
