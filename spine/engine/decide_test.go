package engine

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// TestDecideIsCycle drives two sessions over the same rules and facts, one with Cycle
// and one with Decide: every cycle decides alike, LastCycle builds the result Cycle
// returned, and the traces are the same bytes. Rules that error, refraction and an
// empty conflict set are among the cycles.
func TestDecideIsCycle(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - {name: z_salient, salience: 9, when: older != nil && older.x > 2, then: {objective: go}}
  - {name: y_specific, salience: 1, when: older != nil && newer != nil, then: {objective: stop}}
  - {name: u_error, salience: 99, when: 'elsewhere.x == 0 && [1][older.x] > 0', then: {objective: go}}
  - {name: t_acts, salience: 0, when: older != nil && older.x > 5, then: {update: [{kind: elsewhere, fields: {x: 1}}]}}
`)
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	open := func(sink tr.Sink) *Session {
		return NewSession(rs, WithTrace(sink), WithRunID("decide"), WithClock(clock.NewStep(start, time.Second)))
	}
	for _, discard := range []bool{false, true} {
		sinks := []*tr.MemorySink{{}, {}}
		var a, b *Session
		if discard {
			a, b = open(tr.Discard), open(tr.Discard)
		} else {
			a, b = open(sinks[0]), open(sinks[1])
		}
		ctx := context.Background()
		if d, err := b.Decide(ctx); err != nil || d.Fired() != "" || b.LastCycle().Cycle != 1 {
			t.Fatalf("a cycle over no facts: %+v, %v", d, err)
		}
		cycle(t, a)
		steps := []func(s *Session){
			func(s *Session) { put(t, s, "older", "", ruleset.Fields{"x": 3}) },
			func(s *Session) { put(t, s, "newer", "", nil) },
			func(s *Session) { put(t, s, "elsewhere", "", nil) },
			func(s *Session) {},
			func(s *Session) { put(t, s, "older", "", ruleset.Fields{"x": 7}) },
			func(s *Session) {},
			func(s *Session) {},
			func(s *Session) {},
			func(s *Session) {},
		}
		errs, empty := 0, 0
		for i, step := range steps {
			step(a)
			step(b)
			want := cycle(t, a)
			if errs += want.Errors; want.Fired == "" {
				empty++
			}
			got, err := b.Decide(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got.Fired() != want.Fired || got.Objective != want.Objective || got.Errors != want.Errors {
				t.Errorf("discard=%v cycle %d: Decide %+v, Cycle fired %q objective %q errors %d", discard, i+2, got, want.Fired, want.Objective, want.Errors)
			}
			wantJSON, _ := json.Marshal(want)
			gotJSON, _ := json.Marshal(b.LastCycle())
			if string(wantJSON) != string(gotJSON) || b.LastCycle().Objective != want.Objective {
				t.Errorf("discard=%v cycle %d: LastCycle\n%s\nCycle\n%s", discard, i+2, gotJSON, wantJSON)
			}
		}
		if errs == 0 || empty == 0 {
			t.Errorf("discard=%v: the cycles had %d errors and %d empty conflict sets; want some of each", discard, errs, empty)
		}
		if !discard && len(sinks[0].Bytes()) == 0 {
			t.Error("nothing traced")
		}
		if a.tracer.count() != b.tracer.count() {
			t.Errorf("discard=%v: seq %d after Cycle, %d after Decide", discard, a.tracer.count(), b.tracer.count())
		}
		if string(sinks[0].Bytes()) != string(sinks[1].Bytes()) {
			t.Errorf("the traces differ:\n%s\n%s", sinks[0].Bytes(), sinks[1].Bytes())
		}
	}
}
