package engine

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	tr "github.com/agentspine/spine/spine/trace"
)

// agendaKinds is the head of every rule set in this file: two singleton kinds rules read
// and one they never read.
const agendaKinds = `version: 1
facts:
  older:
    fields: {x: int}
  newer:
    fields: {x: int}
  elsewhere:
    fields: {x: int}
objectives:
  - name: go
  - name: stop
    terminal: success
rules:
`

func cycle(t *testing.T, s *Session) *CycleResult {
	t.Helper()
	c, err := s.Cycle(context.Background())
	if err != nil {
		t.Fatalf("cycle: %v", err)
	}
	return c
}

func put(t *testing.T, s *Session, kind, id string, fields ruleset.Fields) {
	t.Helper()
	if _, err := s.Put(kind, id, fields); err != nil {
		t.Fatalf("put %s/%s: %v", kind, id, err)
	}
}

// TestAgendaTieBreakers isolates each criterion of the agenda order: in every case the
// criteria before it are equal, and the criteria after it (name last of all) would have
// chosen the other rule.
func TestAgendaTieBreakers(t *testing.T) {
	cases := []struct {
		name      string
		rules     string
		setup     func(t *testing.T, s *Session)
		fired     string
		decidedBy string
		cset      string
	}{
		{
			name: "salience",
			rules: `
  - {name: a_low, salience: 1, when: older != nil, then: {objective: go}}
  - {name: b_high, salience: 2, when: older != nil, then: {objective: go}}
`,
			fired: "b_high", decidedBy: DecidedSalience, cset: "b_high,a_low",
		},
		{
			name: "specificity",
			rules: `
  - {name: a_one, salience: 5, when: older != nil, then: {objective: go}}
  - {name: b_two, salience: 5, when: older != nil && older.x >= 0, then: {objective: go}}
  - {name: c_three, salience: 5, when: older != nil and older.x >= 0 and (older.x < 9 || older.x > 10), then: {objective: go}}
`,
			fired: "c_three", decidedBy: DecidedSpecificity, cset: "c_three,b_two,a_one",
		},
		{
			name: "recency",
			rules: `
  - {name: a_reads_newer, salience: 5, when: newer != nil, then: {objective: go}}
  - {name: b_reads_older, salience: 5, when: older != nil, then: {objective: go}}
`,
			setup: func(t *testing.T, s *Session) {
				put(t, s, "newer", "", nil)
				put(t, s, "older", "", ruleset.Fields{"x": 1}) // now the most recent change
			},
			fired: "b_reads_older", decidedBy: DecidedRecency, cset: "b_reads_older,a_reads_newer",
		},
		{
			name: "recency takes the newest kind a rule reads",
			rules: `
  - {name: a_reads_older, salience: 5, when: older != nil || 1 > 2, then: {objective: go}}
  - {name: b_reads_both, salience: 5, when: older != nil || newer == nil, then: {objective: go}}
`,
			fired: "b_reads_both", decidedBy: DecidedRecency, cset: "b_reads_both,a_reads_older",
		},
		{
			name: "name",
			rules: `
  - {name: b, salience: 5, when: older != nil, then: {objective: go}}
  - {name: a, salience: 5, when: older.x == 0, then: {objective: go}}
`,
			fired: "a", decidedBy: DecidedName, cset: "a,b",
		},
		{
			name: "alone",
			rules: `
  - {name: a, salience: 5, when: older == nil, then: {objective: go}}
  - {name: b, salience: 5, when: older != nil, then: {objective: go}}
`,
			fired: "b", decidedBy: DecidedAlone, cset: "b",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := NewSession(mustLoad(t, agendaKinds+c.rules))
			put(t, s, "older", "", nil)
			put(t, s, "newer", "", nil)
			if c.setup != nil {
				c.setup(t, s)
			}
			res := cycle(t, s)
			if res.Fired != c.fired || res.DecidedBy != c.decidedBy {
				t.Errorf("fired %q decided by %q; want %q by %q", res.Fired, res.DecidedBy, c.fired, c.decidedBy)
			}
			if got := strings.Join(res.ConflictSet, ","); got != c.cset {
				t.Errorf("conflict set %s, want %s", got, c.cset)
			}
		})
	}
}

// TestAgendaConflictSetTrace checks that the trace records every rule's result, the whole
// conflict set in agenda order, the rule fired and the tie-breaker.
func TestAgendaConflictSetTrace(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - {name: z_salient, salience: 9, when: older != nil, then: {objective: go}}
  - {name: y_specific, salience: 1, when: older != nil && newer != nil, then: {objective: go}}
  - {name: x_false, salience: 50, when: older == nil, then: {objective: go}}
  - {name: w_recent, salience: 1, when: elsewhere != nil, then: {objective: go}}
  - {name: v_by_name, salience: 1, when: newer != nil, then: {objective: go}}
  - {name: u_error, salience: 99, when: 'elsewhere.x == 0 && [1][older.x] > 0', then: {objective: go}}
`)
	sink := &tr.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	put(t, s, "older", "", ruleset.Fields{"x": 3})
	put(t, s, "newer", "", nil)
	put(t, s, "elsewhere", "", nil)
	res := cycle(t, s)
	const wantSet = "z_salient,y_specific,w_recent,v_by_name"
	if strings.Join(res.ConflictSet, ",") != wantSet || res.Fired != "z_salient" || res.DecidedBy != DecidedSalience {
		t.Errorf("cycle: %+v", res)
	}
	var ev tr.ConflictSet
	lines := traceLines(t, sink)
	var fired []string
	for _, l := range lines {
		switch {
		case strings.Contains(l, `"kind":"conflict_set"`):
			if err := json.Unmarshal([]byte(l), &ev); err != nil {
				t.Fatal(err)
			}
		case strings.Contains(l, `"kind":"rule_fired"`):
			fired = append(fired, l)
		}
	}
	if ev.Cycle != 1 || ev.Scope != "all" || strings.Join(ev.ConflictSet, ",") != wantSet || ev.Fired != "z_salient" || ev.DecidedBy != "salience" {
		t.Errorf("conflict_set event: %+v", ev)
	}
	// Rules are evaluated in the static part of the agenda order: salience, specificity, name.
	wantEval := []string{"u_error=error", "x_false=false", "z_salient=true", "y_specific=true", "v_by_name=true", "w_recent=true"}
	if len(ev.Evaluated) != len(wantEval) {
		t.Fatalf("evaluated %d rules, want %d: %+v", len(ev.Evaluated), len(wantEval), ev.Evaluated)
	}
	for i, e := range ev.Evaluated {
		if e.Rule+"="+e.Result != wantEval[i] {
			t.Errorf("evaluated[%d] = %s=%s, want %s", i, e.Rule, e.Result, wantEval[i])
		}
	}
	if !strings.Contains(ev.Evaluated[0].Error, "index out of range") {
		t.Errorf("the error outcome does not say what failed: %q", ev.Evaluated[0].Error)
	}
	if len(fired) != 1 || !strings.Contains(fired[0], `"rule":"z_salient"`) {
		t.Errorf("want exactly one rule_fired event for z_salient, got %q", fired)
	}
}

// TestAgendaOneFiringPerCycle runs three always-true rules: each cycle fires exactly one,
// in agenda order, and refraction then lets the next one through.
func TestAgendaOneFiringPerCycle(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - {name: first, salience: 3, when: older != nil, then: {objective: go}}
  - {name: second, salience: 2, when: older != nil, then: {objective: go}}
  - {name: third, salience: 1, when: older != nil, then: {objective: go}}
`)
	sink := &tr.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	put(t, s, "older", "", nil)
	var order []string
	for i := 0; i < 4; i++ {
		res := cycle(t, s)
		order = append(order, res.Fired)
	}
	if strings.Join(order, ",") != "first,second,third," {
		t.Errorf("firings by cycle = %q, want first, second, third, then none", order)
	}
	if n := strings.Count(string(sink.Bytes()), `"kind":"rule_fired"`); n != 3 {
		t.Errorf("%d rule_fired events over four cycles, want 3", n)
	}
}

// TestAgendaRefraction isolates refraction: a rule does not fire twice on the same
// revisions of the kinds it reads, fires again once one of them changes, and a change to a
// kind it does not read leaves it refracted.
func TestAgendaRefraction(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - {name: watch, salience: 1, when: older != nil && older.x >= 0, then: {objective: go}}
`)
	s := NewSession(rs)
	put(t, s, "older", "", nil)
	steps := []struct {
		change    func()
		fired     string
		refracted bool
	}{
		{nil, "watch", false},
		{nil, "", true},
		{func() { put(t, s, "elsewhere", "", ruleset.Fields{"x": 1}) }, "", true},
		{func() { put(t, s, "newer", "", nil) }, "", true},
		{func() { put(t, s, "older", "", ruleset.Fields{"x": 1}) }, "watch", false},
		{nil, "", true},
		{func() { put(t, s, "older", "", ruleset.Fields{"x": 1}) }, "watch", false}, // same values, new revision
		{func() {
			if err := s.Retract("older", ""); err != nil {
				t.Fatal(err)
			}
			put(t, s, "older", "", nil)
		}, "watch", false},
	}
	for i, st := range steps {
		if st.change != nil {
			st.change()
		}
		res := cycle(t, s)
		ev := res.Evaluated[0]
		if res.Fired != st.fired || ev.Result != ResultTrue || ev.Refracted != st.refracted {
			t.Errorf("step %d: fired %q, evaluated %+v; want fired %q refracted %v", i+1, res.Fired, ev, st.fired, st.refracted)
		}
	}
}

// TestAgendaRefractionOfOneOfTwo holds a leaf's cached agenda to refraction: two rules
// read the same kind, so the leaf fixes their order only while neither is refracted.
func TestAgendaRefractionOfOneOfTwo(t *testing.T) {
	s := NewSession(mustLoad(t, agendaKinds+`
  - {name: high, salience: 2, when: older != nil && older.x >= 0, then: {objective: go}}
  - {name: low, salience: 1, when: older != nil && older.x < 5, then: {objective: go}}
`))
	put(t, s, "older", "", nil)
	for i, want := range []struct{ fired, cset, decidedBy string }{
		{"high", "high,low", DecidedSalience},
		{"low", "low", DecidedAlone}, // high is refracted; low has not fired
		{"", "", ""},
	} {
		res := cycle(t, s)
		if got := strings.Join(res.ConflictSet, ","); res.Fired != want.fired || got != want.cset || res.DecidedBy != want.decidedBy {
			t.Errorf("cycle %d: fired %q, conflict set %q, decided by %q; want %q, %q, %q", i+1, res.Fired, got, res.DecidedBy, want.fired, want.cset, want.decidedBy)
		}
	}
	put(t, s, "older", "", ruleset.Fields{"x": 1})
	if res := cycle(t, s); res.Fired != "high" || strings.Join(res.ConflictSet, ",") != "high,low" {
		t.Errorf("after a change: fired %q, conflict set %v; want high of high,low", res.Fired, res.ConflictSet)
	}
}

// TestAgendaRuntimeErrors checks that a predicate that fails at run time, or panics, is
// recorded as that rule's outcome and the cycle still fires another rule.
func TestAgendaRuntimeErrors(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - {name: nil_fact, salience: 9, when: newer.x > 0, then: {objective: stop}}
  - {name: nil_fact_vm, salience: 9, when: 'newer.x > 0 && len("vm") > 0', then: {objective: stop}}
  - {name: fallback, salience: 1, when: older != nil, then: {objective: go}}
`)
	sink := &tr.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	put(t, s, "older", "", nil)
	res := cycle(t, s)
	if res.Fired != "fallback" || res.DecidedBy != DecidedAlone {
		t.Fatalf("fired %q by %q, want fallback alone", res.Fired, res.DecidedBy)
	}
	for _, e := range res.Evaluated[:2] {
		if e.Result != ResultError || e.Error == "" {
			t.Errorf("%s: %+v, want an error outcome with its message", e.Rule, e)
		}
	}
	// A predicate panics only through a bug; a rule built by hand, with no program,
	// stands in for one.
	if ok, err := s.evalVM(&ruleset.Rule{Name: "panics"}); ok || err == nil || !strings.HasPrefix(err.Error(), "panic: ") {
		t.Errorf("a panicking predicate gives %v, %v; want false and a panic error", ok, err)
	}
	if s.Objective() != "go" {
		t.Errorf("objective %q, want go", s.Objective())
	}
	if !strings.Contains(string(sink.Bytes()), `"result":"error","error":"`) {
		t.Errorf("the trace does not record the error outcome")
	}
}

func TestAgendaRunaway(t *testing.T) {
	rs := mustLoad(t, agendaKinds+`
  - name: tick
    salience: 1
    when: older != nil
    then:
      update: {kind: older, fields: {x: 1}}
`)
	s := NewSession(rs, WithMaxFirings(3))
	put(t, s, "older", "", nil)
	for i := 0; i < 3; i++ {
		if res := cycle(t, s); res.Fired != "tick" {
			t.Fatalf("cycle %d fired %q; the update should undo refraction each time", i+1, res.Fired)
		}
	}
	_, err := s.Cycle(context.Background())
	var re *RunawayError
	if !errors.As(err, &re) {
		t.Fatalf("fourth cycle: %v, want a *RunawayError", err)
	}
	const want = "spine: rule firings exceeded the limit of 3; last firings: [cycle 1 tick] [cycle 2 tick] [cycle 3 tick]"
	if re.Limit != 3 || len(re.Last) != 3 || err.Error() != want {
		t.Errorf("runaway error %+v:\n%s\nwant\n%s", re, err, want)
	}

	// The error keeps only the most recent firings, oldest first.
	s = NewSession(rs, WithMaxFirings(13))
	put(t, s, "older", "", nil)
	var last error
	for i := 0; i < 20 && last == nil; i++ {
		_, last = s.Cycle(context.Background())
	}
	if !errors.As(last, &re) || len(re.Last) != 10 || re.Last[0].Cycle != 4 || re.Last[9].Cycle != 13 {
		t.Errorf("after 13 firings: %v", last)
	}
}

// TestAgendaThenActions checks that every kind of then-action takes effect and that an
// action that cannot be carried out becomes a rule_error event without stopping the rule's
// other actions.
func TestAgendaThenActions(t *testing.T) {
	rs := mustLoad(t, `version: 1
facts:
  note:
    fields: {text: string, n: int}
  item:
    many: true
    fields: {status: string}
objectives:
  - name: go
rules:
  - name: act
    salience: 1
    when: note != nil
    then:
      objective: go
      assert:
        - {kind: item, id: made, fields: {status: new}}
      update:
        - {kind: note, fields: {n: 7}}
        - {kind: item, id: ghost, fields: {status: x}}
      retract:
        - {kind: item, id: old}
        - {kind: item, id: never_there}
`)
	sink := &tr.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	put(t, s, "note", "", ruleset.Fields{"text": "keep"})
	put(t, s, "item", "old", ruleset.Fields{"status": "stale"})
	if res := cycle(t, s); res.Fired != "act" || res.Objective != "go" {
		t.Fatalf("cycle: %+v", res)
	}
	if _, ok := s.Get("item", "old"); ok {
		t.Errorf("retract did not take effect")
	}
	if f, ok := s.Get("item", "made"); !ok || field(t, f, "status") != "new" {
		t.Errorf("assert did not take effect: %+v", f)
	}
	if f, _ := s.Get("note", ""); field(t, f, "n") != 7 || field(t, f, "text") != "keep" {
		t.Errorf("update did not take effect: %+v", f.Payload)
	}
	if f, ok := s.Get(ruleset.KindObjective, ""); !ok || field(t, f, "name") != "go" || field(t, f, "rule") != "act" {
		t.Errorf("objective fact = %+v", f)
	}
	lines := traceLines(t, sink)
	last := lines[len(lines)-1]
	const wantErr = `"kind":"rule_error","cycle":1,"rule":"act","errors":["no such fact: item/never_there","no such fact: item/ghost"]}`
	if !strings.HasSuffix(last, wantErr) {
		t.Errorf("last trace line = %s\nwant it to end with %s", last, wantErr)
	}
}
