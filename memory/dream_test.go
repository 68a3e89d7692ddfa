package memory

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentspine/spine/contract"
)

// recordingDistiller keeps the requests it gets and answers with a scripted result.
type recordingDistiller struct {
	mu   sync.Mutex
	reqs []DistilRequest
	resp func(DistilRequest) (DistilResponse, error)
}

func (d *recordingDistiller) Distil(ctx context.Context, req DistilRequest) (DistilResponse, error) {
	d.mu.Lock()
	d.reqs = append(d.reqs, req)
	d.mu.Unlock()
	return d.resp(req)
}

func TestDreamDistillerFailures(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			calls := 0
			d := &recordingDistiller{resp: func(req DistilRequest) (DistilResponse, error) {
				calls++
				switch calls {
				case 1:
					return DistilResponse{}, errors.New("rate limited")
				case 2:
					return DistilResponse{Content: "  \n"}, nil
				}
				return DistilResponse{Content: " prefer blue-green "}, nil
			}}
			e := newEnv(t, bc, func(o *Options) { o.Distiller = d })
			for i := 0; i < 7; i++ {
				e.write(megram("intent:deploy", EntityLocal, "success", 0.8, 1, 0.05))
			}
			for _, want := range []struct {
				kind, err string
			}{
				{EventConsolidationFailed, "distiller: rate limited"},
				{EventConsolidationFailed, "distiller returned empty content"},
				{EventConsolidated, ""},
			} {
				rep := e.dream()
				evs := e.rec.takeEvents()
				if len(evs) != 1 || evs[0].Kind != want.kind || evs[0].Error != want.err {
					t.Fatalf("events %+v, want one %s with error %q (report %+v)", evs, want.kind, want.err, rep)
				}
			}
			sops, _ := e.s.QueryC(context.Background(), "intent:deploy", EntityLocal)
			if len(sops) != 1 || sops[0].Content != "prefer blue-green" {
				t.Fatalf("SOPs %+v, want the trimmed distilled text", sops)
			}
		})
	}
}

func TestDreamEvidenceOrderAndCap(t *testing.T) {
	d := &recordingDistiller{resp: func(DistilRequest) (DistilResponse, error) { return DistilResponse{Content: "ok"}, nil }}
	e := newEnv(t, backendCases[0], func(o *Options) {
		o.Distiller = d
		o.Dream = DefaultDreamConfig()
		o.Dream.EvidenceLimit = 3
	})
	// Older entries weigh less: the three written last must be the evidence.
	for i := 0; i < 8; i++ {
		m := megram("tool:make", "path:all", "success", 0.8, 1, 0.05)
		m.Content = fmt.Sprintf("run %d", i)
		e.write(m)
		e.clock.Advance(time.Hour)
	}
	e.dream()
	if len(d.reqs) != 1 {
		t.Fatalf("%d distiller calls, want 1", len(d.reqs))
	}
	req := d.reqs[0]
	var got []string
	for _, ev := range req.Evidence {
		got = append(got, ev.Content)
	}
	if req.Kind != KindBestPractice || strings.Join(got, ",") != "run 7,run 6,run 5" {
		t.Fatalf("request %+v, want best_practice with runs 7, 6, 5", req)
	}
	if !(req.Evidence[0].Weight > req.Evidence[1].Weight) {
		t.Errorf("evidence not heaviest first: %+v", req.Evidence)
	}
}

func TestDreamDryRunCallsNoDistiller(t *testing.T) {
	d := &recordingDistiller{resp: func(DistilRequest) (DistilResponse, error) { return DistilResponse{Content: "x"}, nil }}
	e := newEnv(t, backendCases[1], func(o *Options) { o.Distiller = d })
	for i := 0; i < 7; i++ {
		e.write(megram("intent:x", EntityLocal, "success", 0.8, 1, 0.05))
	}
	rep, err := e.s.Dream(context.Background(), DreamOptions{DryRun: true})
	if err != nil || rep.Consolidated != 1 || len(d.reqs) != 0 {
		t.Fatalf("dry run: %+v %v with %d distiller calls; want 1 decision, 0 calls", rep, err, len(d.reqs))
	}
	if sops, _ := e.s.QueryC(context.Background(), "intent:x", EntityLocal); len(sops) != 0 {
		t.Fatalf("dry run promoted %+v", sops)
	}
}

func TestDreamSkips(t *testing.T) {
	e := newEnv(t, backendCases[1], nil)
	for i := 0; i < 7; i++ {
		e.write(megram("intent:x", EntityLocal, "success", 0.8, 1, 0.05))
	}
	e.write(megram("tool:a", "path:b", "refine", 0.1, 0.5, 0.5))
	e.clock.Advance(2 * Day) // past the forgetting grace
	rep, err := e.s.Dream(context.Background(), DreamOptions{SkipConsolidation: true})
	if err != nil || rep.Consolidated != 0 || rep.Forgotten != 1 {
		t.Fatalf("skip consolidation: %+v %v", rep, err)
	}
	rep, err = e.s.Dream(context.Background(), DreamOptions{SkipForgetting: true})
	if err != nil || rep.Consolidated != 1 || rep.Forgotten != 0 {
		t.Fatalf("skip forgetting: %+v %v", rep, err)
	}
}

func TestDreamConfigValidate(t *testing.T) {
	if err := DefaultDreamConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mut  func(*DreamConfig)
		want string
	}{
		{func(c *DreamConfig) { c.ConsolidateAttention = 0 }, "consolidate_attention"},
		{func(c *DreamConfig) { c.BestPracticeDecision = -1 }, "best_practice_decision"},
		{func(c *DreamConfig) { c.ConstraintDecision = 3 }, "constraint_decision"},
		{func(c *DreamConfig) { c.DemotedK = 0 }, "demoted_k"},
		{func(c *DreamConfig) { c.EvidenceLimit = 0 }, "evidence_limit"},
		{func(c *DreamConfig) { c.Interval = -time.Second }, "interval"},
	} {
		c := DefaultDreamConfig()
		tc.mut(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v, want an error naming %s", c, err, tc.want)
		}
		if _, err := NewInMemory(Options{Clock: newClock(), Dream: c}); err == nil {
			t.Errorf("NewInMemory accepted %+v", c)
		}
	}
	if _, err := NewInMemory(Options{}); err == nil || !strings.Contains(err.Error(), "Clock") {
		t.Errorf("NewInMemory without a clock: %v", err)
	}
}

func TestDreamerRunsAfterFinalResult(t *testing.T) {
	timer := newManualTimer()
	e := newEnv(t, backendCases[0], func(o *Options) {
		o.Timer = timer
		o.Dream = DefaultDreamConfig()
		o.Dream.SettleDelay = 3 * time.Second
	})
	for i := 0; i < 7; i++ {
		e.write(megram("intent:ship_it", EntityLocal, "accept", 0.9, 1, 0.05))
	}
	e.s.NotifyFinalResult(contract.FinalResult{TaskID: "t1", Directive: contract.DirectiveAccept})
	e.s.NotifyFinalResult(contract.FinalResult{TaskID: "t2", Directive: contract.DirectiveAccept}) // shares the pass
	if d := <-timer.armed; d != 3*time.Second {
		t.Fatalf("settle delay %v, want 3s", d)
	}
	select {
	case rep := <-e.rec.passes:
		t.Fatalf("pass ran before the settle delay: %+v", rep)
	case <-time.After(50 * time.Millisecond):
	}
	timer.fire()
	rep := <-e.rec.passes
	if rep.Consolidated != 1 {
		t.Fatalf("background pass %+v, want one consolidation", rep)
	}
	// The second notification was coalesced into a trigger that is still pending, or
	// into the first pass; either way at most one more pass follows.
	select {
	case d := <-timer.armed:
		timer.fire()
		if rep := <-e.rec.passes; rep.Consolidated != 0 {
			t.Fatalf("second pass consolidated again: %+v", rep)
		}
		_ = d
	case <-time.After(50 * time.Millisecond):
	}
}

func TestDreamerInterval(t *testing.T) {
	timer := newManualTimer()
	e := newEnv(t, backendCases[1], func(o *Options) {
		o.Timer = timer
		o.Dream = DefaultDreamConfig()
		o.Dream.Interval = time.Hour
	})
	e.write(megram("tool:a", "path:b", "refine", 0.1, 0.5, 0.5))
	e.clock.Advance(2 * Day) // past the forgetting grace
	if d := <-timer.armed; d != time.Hour {
		t.Fatalf("interval %v, want 1h", d)
	}
	timer.fire()
	if rep := <-e.rec.passes; rep.Forgotten != 1 {
		t.Fatalf("timer pass %+v, want the refine entry forgotten", rep)
	}
}

// blockingDistiller waits until its context ends.
type blockingDistiller struct{ started chan struct{} }

func (b blockingDistiller) Distil(ctx context.Context, _ DistilRequest) (DistilResponse, error) {
	close(b.started)
	<-ctx.Done()
	return DistilResponse{}, ctx.Err()
}

func TestCloseAbortsDreamPass(t *testing.T) {
	bd := blockingDistiller{started: make(chan struct{})}
	e := newEnv(t, backendCases[0], func(o *Options) { o.Distiller = bd })
	for i := 0; i < 7; i++ {
		e.write(megram("intent:x", EntityLocal, "success", 0.8, 1, 0.05))
	}
	errc := make(chan error, 1)
	go func() {
		_, err := e.s.DreamOnce(context.Background())
		errc <- err
	}()
	<-bd.started
	done := make(chan struct{})
	go func() { e.s.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not abort the pass")
	}
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("aborted pass returned %v, want context.Canceled", err)
	}
}

// repeatingIDs hands out the same ID forever: a broken IDSource.
type repeatingIDs struct{}

func (repeatingIDs) NewID() string { return "same" }

func TestDreamNeverOverwrites(t *testing.T) {
	for _, bc := range backendCases {
		t.Run(bc.name, func(t *testing.T) {
			e := newEnv(t, bc, func(o *Options) { o.IDs = repeatingIDs{} })
			m := megram("intent:x", EntityLocal, "success", 0.8, 1, 0.05)
			for i := 0; i < 7; i++ {
				m.ID = fmt.Sprintf("w%d", i)
				e.write(m)
			}
			m.ID = "same"
			e.write(m)
			if _, err := e.s.DreamOnce(context.Background()); err == nil || !strings.Contains(err.Error(), "repeated same") {
				t.Fatalf("DreamOnce = %v, want the repeated ID refused", err)
			}
			r, err := e.s.Get(context.Background(), "same")
			if err != nil || r.Level != contract.LevelM {
				t.Fatalf("record same = %+v, %v; want the M entry untouched", r, err)
			}
		})
	}
}
