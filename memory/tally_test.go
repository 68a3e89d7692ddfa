package memory

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

// failingBackend fails every commit while fail is set.
type failingBackend struct {
	backend
	fail atomic.Bool
}

func (f *failingBackend) apply(c *change) error {
	if f.fail.Load() {
		return errors.New("write /mem/000003.log: no space left on device")
	}
	return f.backend.apply(c)
}

func TestLostWritesAreReportedEverywhere(t *testing.T) {
	fb := &failingBackend{backend: newMemBackend()}
	s := newService(fb, Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "t"}, Timer: newManualTimer()})
	defer s.Close()
	tally, err := s.TallyWriterFor(RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	defer tally.Stop()
	other, _ := s.WriterFor(RoleGGS)
	ctx := context.Background()

	tally.Write(burstMegram(1))
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("flush of a stored write: %v", err)
	}
	fb.fail.Store(true)
	tally.Write(burstMegram(2))
	tally.Write(burstMegram(3))
	other.Write(burstMegram(4)) // another writer's loss is the store's, not the tally's
	bad := burstMegram(5)
	bad.F = 7
	tally.Write(bad) // rejected before it is queued
	err = s.Flush(ctx)
	var we *WriteError
	if !errors.As(err, &we) || we.Lost != 4 {
		t.Fatalf("flush: %v, want a *WriteError for 4 lost writes", err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatalf("a second flush with nothing lost since: %v", err)
	}
	rep := tally.Report(ctx)
	if rep.Sent != 4 || rep.Durable != 1 || len(rep.Failed) != 3 || rep.Pending != 0 || rep.Lost() != 3 {
		t.Fatalf("tally %+v, want 4 sent, 1 durable, 3 failed", rep)
	}
	fb.fail.Store(false)
	dr, err := s.DreamOnce(ctx)
	if err != nil || dr.LostWrites != 4 {
		t.Fatalf("dream pass %+v, %v: want it to count 4 lost writes", dr, err)
	}
}
