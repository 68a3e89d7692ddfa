package engine

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// TestQuietCycleIsCycle drives two discarding sessions over the same facts, one with
// Cycle and one with Decide's steps, noting which cycles decideQuiet took: both take the
// same seqs, fire alike, keep the same firings and build the same LastCycle, whether
// the quiet cycle or the general one ran. The steps revisit leaves (quiet), repeat
// facts (refraction: general), reach an empty conflict set and fire a rule that
// changes a fact (general).
func TestQuietCycleIsCycle(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - {name: a_high, salience: 5, when: older != nil && older.x > 5, then: {objective: go, transition: observe}}
  - {name: b_low, salience: 1, when: older != nil && older.x > 2, then: {objective: stop}}
  - {name: c_acts, salience: 9, when: newer != nil && newer.x > 0, then: {update: [{kind: newer, fields: {x: 0}}]}}
`)
	a, b := NewSession(rs, WithTrace(tr.Discard)), NewSession(rs, WithTrace(tr.Discard))
	ctx := context.Background()
	older := func(x int) func(*Session) {
		return func(s *Session) { put(t, s, "older", "", ruleset.Fields{"x": x}) }
	}
	same := func(*Session) {}
	steps := []func(*Session){
		older(3), older(7), older(1), older(3), older(7), same, older(7), older(1), older(1),
		func(s *Session) { put(t, s, "newer", "", ruleset.Fields{"x": 1}) }, same,
		older(3), older(7), older(3),
	}
	quiet := 0
	for i, step := range steps {
		step(a)
		step(b)
		want := cycle(t, a)
		if err := b.mayCycle(ctx); err != nil {
			t.Fatal(err)
		}
		b.cyc.objectives = nil
		decided, leaf := b.lookup()
		ok := b.decideQuiet(leaf)
		if ok {
			quiet++
		} else {
			b.cycleFrom(false, decided, leaf)
		}
		got := b.lastDecided()
		if got.Fired() != want.Fired || got.Objective != want.Objective || got.Errors != want.Errors {
			t.Errorf("step %d (quiet %v): decided %+v, Cycle fired %q objective %q", i, ok, got, want.Fired, want.Objective)
		}
		wantJSON, _ := json.Marshal(want)
		gotJSON, _ := json.Marshal(b.LastCycle())
		if string(wantJSON) != string(gotJSON) || b.LastCycle().Objective != want.Objective {
			t.Errorf("step %d (quiet %v): LastCycle\n%s\nCycle\n%s", i, ok, gotJSON, wantJSON)
		}
		if a.tracer.count() != b.tracer.count() || a.requested != b.requested || a.Objective() != b.Objective() ||
			a.objectiveRule() != b.objectiveRule() || !slices.Equal(a.lastFirings(), b.lastFirings()) || !slices.Equal(a.firedAt, b.firedAt) {
			t.Errorf("step %d (quiet %v): seq %d/%d requested %q/%q objective %q by %q / %q by %q firings %v / %v",
				i, ok, a.tracer.count(), b.tracer.count(), a.requested, b.requested, a.Objective(), a.objectiveRule(),
				b.Objective(), b.objectiveRule(), a.lastFirings(), b.lastFirings())
		}
	}
	if quiet < 4 || quiet == len(steps) {
		t.Errorf("%d of %d cycles were quiet; want both kinds, and at least 4 quiet", quiet, len(steps))
	}
}
