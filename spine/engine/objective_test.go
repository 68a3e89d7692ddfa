package engine

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

// scoredRules have a scored objective that a rule reads, one that composes it and one
// whose evaluation can fail.
const scoredRules = `params: {target: 0.5}
facts:
  s:
    fields: {x: float, ok: bool}
objectives:
  - name: progress
    score: "s == nil ? 0 : s.x"
    satisfied: s != nil && s.x >= params.target
  - name: both
    satisfied: objectives.progress.satisfied && s.ok
  - name: fragile
    score: s.x / (s.x - 1)
  - {name: done, terminal: success}
  - {name: wait}
rules:
  - name: close_enough
    salience: 10
    when: objectives.progress.score > 0.3
    then: {objective: wait}
  - name: finished
    salience: 20
    when: objectives.both.satisfied
    then: {objective: done}
`

func cycleObjectives(t *testing.T, s *Session) (*CycleResult, string) {
	t.Helper()
	res, err := s.Cycle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res.Objectives)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// Objectives are evaluated at the start of every cycle, in file order, before the rules
// that read them; a failed evaluation is recorded and reads as score 0, not satisfied.
func TestObjectivesEvaluatedEachCycle(t *testing.T) {
	rs, err := LoadRules("o.yaml", []byte(scoredRules))
	if err != nil {
		t.Fatal(err)
	}
	if got := rs.Rules()[0].Reads; len(got) != 1 || got[0] != "s" {
		t.Errorf("close_enough reads %v; want [s], the kind its objective reads", got)
	}
	if got := rs.Rules()[1].Reads; len(got) != 1 || got[0] != "s" {
		t.Errorf("finished reads %v; want [s], through both and progress", got)
	}
	s := NewSession(rs)
	for i, step := range []struct {
		put        ruleset.Fields // nil: no change before the cycle
		objectives string
		fired      string
	}{
		// both's && stops before s.ok; fragile reads the absent s, an error of expr's.
		{nil, `[{"objective":"progress","score":0,"satisfied":false},{"objective":"both","satisfied":false},` +
			`{"objective":"fragile","error":"score: reflect: call of reflect.Value.Field on zero Value (1:3)\n | s.x / (s.x - 1)\n | ..^"}]`, ""},
		{ruleset.Fields{"x": 0.4}, `[{"objective":"progress","score":0.4,"satisfied":false},{"objective":"both","satisfied":false},` +
			`{"objective":"fragile","score":-0.6666666666666667}]`, "close_enough"},
		{nil, `[{"objective":"progress","score":0.4,"satisfied":false},{"objective":"both","satisfied":false},` +
			`{"objective":"fragile","score":-0.6666666666666667}]`, ""}, // refracted: s has not changed
		{ruleset.Fields{"x": 1.0, "ok": true}, `[{"objective":"progress","score":1,"satisfied":true},{"objective":"both","satisfied":true},` +
			`{"objective":"fragile","error":"score: +Inf is not a finite number"}]`, "finished"},
	} {
		if step.put != nil {
			if _, err := s.Put("s", "", step.put); err != nil {
				t.Fatal(err)
			}
		}
		res, got := cycleObjectives(t, s)
		if got != step.objectives {
			t.Errorf("cycle %d: objectives\n got %s\nwant %s", i+1, got, step.objectives)
		}
		if res.Fired != step.fired {
			t.Errorf("cycle %d: fired %q, want %q", i+1, res.Fired, step.fired)
		}
	}
	// Objectives evaluates on the current facts and returns a copy.
	evals := s.Objectives()
	if len(evals) != 3 || !evals[0].Satisfied || evals[0].Score != 1 || evals[2].Error == "" {
		t.Errorf("Objectives() = %+v", evals)
	}
}

// A rule set that scores no objective writes conflict_set events without the key, so
// the traces of existing rule files stay as they were.
func TestNoScoredObjectivesNoKey(t *testing.T) {
	rs, err := LoadRules("o.yaml", []byte(strings.Replace(scoredRules, "objectives.both.satisfied", "s != nil && s.ok", 1)))
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	if _, err := s.Cycle(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(sink.Bytes()), `"objectives":[{"objective":"progress"`) {
		t.Errorf("a scored rule set: no objectives in\n%s", sink.Bytes())
	}
	plain, err := LoadRules("p.yaml", []byte("facts: {s: {fields: {x: float}}}\nobjectives: [{name: a}]\nrules: [{name: r, salience: 1, when: true, then: {objective: a}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	sink = &trace.MemorySink{}
	s = NewSession(plain, WithTrace(sink))
	res, err := s.Cycle(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if res.Objectives != nil || strings.Contains(string(sink.Bytes()), `"objectives"`) || s.Objectives() != nil {
		t.Errorf("an unscored rule set wrote objectives:\n%s", sink.Bytes())
	}
}

// The conflict_set event's objectives decode into the trace package's body and write
// back to the same bytes, for every shape: scores in both float notations, parts left
// out, errors.
func TestObjectivesTraceRoundTrip(t *testing.T) {
	src := `facts:
  s:
    fields: {x: float}
objectives:
  - {name: tiny, score: "s == nil ? 1e-9 : s.x"}
  - {name: huge, score: "s == nil ? 1e22 : -s.x", satisfied: "s == nil"}
  - {name: only_sat, satisfied: "s.x > 0"}
  - {name: whole, score: "7"}
rules: [{name: r, salience: 1, when: "objectives.whole.score == 7", then: {objective: whole}}]
`
	rs, err := LoadRules("o.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	sink := &trace.MemorySink{}
	s := NewSession(rs, WithTrace(sink))
	for _, x := range []any{nil, 0.25, -3.5e-7} {
		if x != nil {
			if _, err := s.Put("s", "", ruleset.Fields{"x": x}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.Cycle(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(sink.Bytes())), "\n") {
		var env struct {
			Kind string `json:"kind"`
		}
		if err := json.Unmarshal([]byte(line), &env); err != nil || env.Kind != trace.KindConflictSet {
			continue
		}
		n++
		var cs trace.ConflictSet
		if err := json.Unmarshal([]byte(line), &cs); err != nil {
			t.Fatal(err)
		}
		if len(cs.Objectives) != 4 {
			t.Fatalf("decoded %d objectives from %s", len(cs.Objectives), line)
		}
		again := string(cs.AppendFields(nil))
		viaJSON, err := json.Marshal(cs.Objectives)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(line, again[1:]) || !strings.Contains(line, `"objectives":`+string(viaJSON)) {
			t.Errorf("round trip:\n line %s\nagain %s\n json %s", line, again, viaJSON)
		}
	}
	if n != 3 {
		t.Fatalf("%d conflict_set events, want 3", n)
	}
}

// A hot reload that rescores objectives takes effect at the next cycle: rules read the
// new values, the conflict_set records them, and a replay applies the same edit.
func TestReloadRescoresObjectives(t *testing.T) {
	scored := `
facts: {score: {fields: {value: float}}}
objectives:
  - {name: work, score: "score == nil ? 0 : score.value / 3", satisfied: "score != nil && score.value >= 3"}
  - {name: done, terminal: success}
rules:
  - {name: keep_working, salience: 1, when: '!objectives.work.satisfied', then: {objective: work}}
  - {name: enough, salience: 9, when: objectives.work.satisfied, then: {objective: done}}
`
	rs, err := LoadRules("scored.yaml", []byte(scored))
	if err != nil {
		t.Fatal(err)
	}
	easier := strings.NewReplacer("value / 3", "value / 2", "value >= 3", "value >= 2").Replace(scored)
	src := &scriptedSource{polls: [][]byte{nil, nil, []byte(easier)}}
	sink := &trace.MemorySink{}
	res, err := NewEngine(rs, &counter{}, WithTrace(sink), WithRuleSource(src)).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// The score is 2 when the edit arrives before the third select: satisfied now.
	if res.Outcome != OutcomeSuccess || res.Iterations != 3 {
		t.Fatalf("%+v", res)
	}
	trace := string(sink.Bytes())
	for _, want := range []string{
		`"objectives":[{"objective":"work","score":0.6666666666666666,"satisfied":false}]`,
		`"objectives":[{"objective":"work","score":1,"satisfied":true}]`,
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %s", want)
		}
	}
	assertReplays(t, sink.Bytes(), rs)
}

// TestScoreOf: a score is any number, as the loader accepts any numeric static type, and
// nothing else.
func TestScoreOf(t *testing.T) {
	for _, c := range []struct {
		v    any
		want float64
		err  string
	}{
		{0.5, 0.5, ""},
		{3, 3, ""},
		{int8(-2), -2, ""},
		{uint64(7), 7, ""},
		{float32(0.25), 0.25, ""},
		{math.NaN(), 0, "NaN is not a finite number"},
		{math.Inf(-1), 0, "-Inf is not a finite number"},
		{"1", 0, "got string, not a number"},
		{true, 0, "got bool, not a number"},
		{nil, 0, "got <nil>, not a number"},
	} {
		got, err := scoreOf(c.v)
		if errString(err) != c.err || got != c.want {
			t.Errorf("scoreOf(%#v) = %v, %v; want %v, %q", c.v, got, err, c.want, c.err)
		}
	}
}
