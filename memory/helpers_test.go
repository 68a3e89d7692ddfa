package memory

import (
	"context"
	"errors"
	"flag"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden files under testdata/")

// t0 is the start of every test clock.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// stepClock is a Clock the test moves by hand.
type stepClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *stepClock { return &stepClock{t: t0} }

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *stepClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// manualTimer is a Timer whose channels fire when the test says so.
type manualTimer struct {
	mu      sync.Mutex
	waiting []chan time.Time
	armed   chan time.Duration // every After call reports its delay here
}

func newManualTimer() *manualTimer { return &manualTimer{armed: make(chan time.Duration, 16)} }

func (m *manualTimer) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	m.mu.Lock()
	m.waiting = append(m.waiting, ch)
	m.mu.Unlock()
	m.armed <- d
	return ch
}

// fire releases every channel handed out so far.
func (m *manualTimer) fire() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ch := range m.waiting {
		ch <- t0
	}
	m.waiting = nil
}

// recorder collects what the store reports through its callbacks.
type recorder struct {
	mu       sync.Mutex
	durable  []string
	errs     []error
	events   []DreamEvent
	refusals []Refusal
	passes   chan DreamReport
}

func newRecorder() *recorder { return &recorder{passes: make(chan DreamReport, 8)} }

func (r *recorder) hook(o *Options) {
	o.OnDurable = func(ids []string) {
		r.mu.Lock()
		r.durable = append(r.durable, ids...)
		r.mu.Unlock()
	}
	o.OnError = func(err error) {
		r.mu.Lock()
		r.errs = append(r.errs, err)
		r.mu.Unlock()
	}
	o.OnDreamEvent = func(ev DreamEvent) {
		r.mu.Lock()
		r.events = append(r.events, ev)
		r.mu.Unlock()
	}
	o.OnRefusal = func(ref Refusal) {
		r.mu.Lock()
		r.refusals = append(r.refusals, ref)
		r.mu.Unlock()
	}
	o.OnDreamPass = func(rep DreamReport, err error) { r.passes <- rep }
}

func (r *recorder) errors() []error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]error(nil), r.errs...)
}

func (r *recorder) takeEvents() []DreamEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev := r.events
	r.events = nil
	return ev
}

func (r *recorder) durableIDs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.durable...)
}

// backendCase opens a Service over one backend.
type backendCase struct {
	name string
	open func(t testing.TB, o Options) *Service
}

var backendCases = []backendCase{
	{"leveldb", func(t testing.TB, o Options) *Service {
		o.Storage.NoSync = true // fsync is tested by the durability tests; keep the suite fast
		s, err := OpenLevelDB(t.TempDir(), o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}},
	{"inmemory", func(t testing.TB, o Options) *Service {
		s, err := NewInMemory(o)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(s.Close)
		return s
	}},
}

// env is a store under test with its clock and recorder.
type env struct {
	t     *testing.T
	s     *Service
	clock *stepClock
	rec   *recorder
}

func newEnv(t *testing.T, bc backendCase, tweak func(*Options)) *env {
	t.Helper()
	e := &env{t: t, clock: newClock(), rec: newRecorder()}
	o := Options{Clock: e.clock, IDs: &SequentialIDs{Prefix: "m"}, Timer: newManualTimer(), Distiller: TemplateDistillerForTests{}}
	e.rec.hook(&o)
	if tweak != nil {
		tweak(&o)
	}
	e.s = bc.open(t, o)
	return e
}

// flush waits for the queue. A lost write is the test's to check through the recorder:
// Flush must report it, and only what the recorder saw.
func (e *env) flush() {
	e.t.Helper()
	err := e.s.Flush(context.Background())
	var we *WriteError
	if errors.As(err, &we) && int(we.Lost) <= len(e.rec.errors()) {
		return
	}
	if err != nil {
		e.t.Fatal(err)
	}
}

// write appends megrams through the GGS writer and waits until they are committed.
func (e *env) write(ms ...contract.Megram) {
	e.t.Helper()
	w, err := e.s.WriterFor(RoleGGS)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range ms {
		w.Write(m)
	}
	e.flush()
}

func (e *env) mk(space, entity string) contract.Potentials {
	e.t.Helper()
	p, err := e.s.QueryMK(context.Background(), space, entity)
	if err != nil {
		e.t.Fatal(err)
	}
	return p
}

func (e *env) dream() DreamReport {
	e.t.Helper()
	rep, err := e.s.DreamOnce(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return rep
}

func (e *env) noErrors() {
	e.t.Helper()
	if errs := e.rec.errors(); len(errs) > 0 {
		e.t.Fatalf("store reported errors: %v", errs)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// megram is shorthand for a tagged M-level Megram.
func megram(space, entity, state string, f, sigma, k float64) contract.Megram {
	return contract.Megram{Space: space, Entity: entity, State: state, F: f, Sigma: sigma, K: k}
}

func dayDuration(days float64) time.Duration { return time.Duration(days * float64(Day)) }
