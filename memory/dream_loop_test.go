package memory

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// gatedBackend holds every commit until the test opens the gate: the write queue is then
// reliably behind when the Dreamer is triggered.
type gatedBackend struct {
	*memBackend
	gate chan struct{}
}

func (g gatedBackend) apply(c *change) error {
	<-g.gate
	return g.memBackend.apply(c)
}

func TestDreamLoopFlushesBeforePass(t *testing.T) {
	timer, rec := newManualTimer(), newRecorder()
	o := Options{Clock: newClock(), IDs: &SequentialIDs{Prefix: "m"}, Timer: timer, Distiller: TemplateDistillerForTests{}}
	rec.hook(&o)
	gate := make(chan struct{})
	release := sync.OnceFunc(func() { close(gate) })
	s := newService(gatedBackend{newMemBackend(), gate}, o)
	defer s.Close()
	defer release() // before Close, which waits for the held commits
	w, err := s.WriterFor(RoleGGS)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 7; i++ {
		w.Write(megram("intent:ship_it", EntityLocal, "accept", 0.9, 1, 0.05))
	}
	s.NotifyFinalResult(contract.FinalResult{TaskID: "t1", Directive: contract.DirectiveAccept})
	if d := <-timer.armed; d != DefaultDreamConfig().SettleDelay {
		t.Fatalf("settle delay %v, want the default %v", d, DefaultDreamConfig().SettleDelay)
	}
	timer.fire()
	select {
	case rep := <-rec.passes:
		t.Fatalf("the pass ran before the queued writes were committed: %+v", rep)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	rep := <-rec.passes
	if rep.Entries != 7 || rep.Consolidated != 1 {
		t.Fatalf("pass %+v, want all 7 queued Megrams seen and one consolidation", rep)
	}
}

func TestDreamLoopCoalescesNotifications(t *testing.T) {
	timer := newManualTimer()
	e := newEnv(t, backendCases[1], func(o *Options) { o.Timer = timer })
	e.write(megram("tool:a", "path:b", "refine", 0.5, 0.5, 0.01))
	e.s.NotifyFinalResult(contract.FinalResult{TaskID: "t1"})
	<-timer.armed
	// Arrives while the first one settles: it shares that pass.
	e.s.NotifyFinalResult(contract.FinalResult{TaskID: "t2"})
	timer.fire()
	if rep := <-e.rec.passes; rep.Entries != 1 {
		t.Fatalf("pass %+v, want the one entry", rep)
	}
	select {
	case d := <-timer.armed:
		t.Fatalf("a second settle delay (%v) was armed for a notification the first pass covered", d)
	case rep := <-e.rec.passes:
		t.Fatalf("second pass %+v", rep)
	case <-time.After(50 * time.Millisecond):
	}
	// A notification after the pass gets a pass of its own.
	e.s.NotifyFinalResult(contract.FinalResult{TaskID: "t3"})
	<-timer.armed
	timer.fire()
	<-e.rec.passes
}

// TestDreamLoopStopsCleanly closes stores whose loop waits on each of its timers and
// counts goroutines: none may outlive Close.
func TestDreamLoopStopsCleanly(t *testing.T) {
	cases := []struct {
		name  string
		setup func(s *Service, timer *manualTimer)
	}{
		{"idle", func(*Service, *manualTimer) {}},
		{"interval", func(_ *Service, timer *manualTimer) { <-timer.armed }},
		{"settle delay", func(s *Service, timer *manualTimer) {
			<-timer.armed // the interval
			s.NotifyFinalResult(contract.FinalResult{TaskID: "t"})
			<-timer.armed // the settle delay
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := runtime.NumGoroutine()
			timer := newManualTimer()
			o := Options{Clock: newClock(), Timer: timer}
			if tc.name != "idle" {
				o.Dream = DefaultDreamConfig()
				o.Dream.Interval = time.Hour
			}
			s, err := OpenLevelDB(t.TempDir(), o)
			if err != nil {
				t.Fatal(err)
			}
			tc.setup(s, timer)
			s.Close()
			deadline := time.Now().Add(2 * time.Second)
			for runtime.NumGoroutine() > before {
				if time.Now().After(deadline) {
					buf := make([]byte, 1<<16)
					t.Fatalf("%d goroutines after Close, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
}
