package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
	"github.com/agentspine/spine/spine/trace"
)

const reloadRules = `
name: reload
params: {goal: 3}
facts: {score: {fields: {value: float}}}
objectives: [{name: work}, {name: done, terminal: success}]
rules:
  - {name: keep_working, salience: 1, when: 'score == nil || score.value < params.goal', then: {objective: work}}
  - {name: enough, salience: 9, when: 'score != nil && score.value >= params.goal', then: {objective: done}}
`

// counter is a test double whose gate adds one to the score each iteration.
type counter struct{ n float64 }

func (c *counter) Mint(ctx context.Context, r MintRequest) (Construct, error) {
	return Construct{ID: "c"}, nil
}

func (c *counter) Gate(ctx context.Context, r GateRequest) (Signals, error) {
	c.n++
	return Signals{Changes: []Change{{Op: ChangePut, Kind: "score", Fields: ruleset.Fields{"value": c.n}}}}, nil
}

// scriptedSource offers a fixed sequence of rule sources, one per poll.
type scriptedSource struct {
	polls [][]byte
	i     int
}

func (s *scriptedSource) Poll() (string, []byte, error) {
	if s.i >= len(s.polls) {
		return "edited.yaml", nil, nil
	}
	src := s.polls[s.i]
	s.i++
	return "edited.yaml", src, nil
}

func TestHotReload(t *testing.T) {
	rs, err := LoadRules("reload.yaml", []byte(reloadRules))
	if err != nil {
		t.Fatal(err)
	}
	lower := strings.Replace(reloadRules, "goal: 3", "goal: 2", 1)
	otherKinds := strings.Replace(reloadRules, "value: float", "value: float, extra: int", 1)
	src := &scriptedSource{polls: [][]byte{[]byte(otherKinds), []byte("rules: [oops"), []byte(lower)}}
	sink := &trace.MemorySink{}
	eng := NewEngine(rs, &counter{}, WithTrace(sink), WithRuleSource(src))
	res, err := eng.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Two refused edits (other fact kinds, bad YAML), then goal 3 → 2 before the third
	// select: the score is already 2, so the edited rules end the run right there,
	// without a third gate.
	if res.Outcome != OutcomeSuccess || res.Iterations != 3 || res.Objective != "done" {
		t.Fatalf("%+v", res)
	}
	if n := strings.Count(string(sink.Bytes()), `"op":"gate"`); n != 2*2 {
		t.Errorf("%d gate events, want 2 calls", n/2)
	}
	trace := string(sink.Bytes())
	for _, want := range []string{
		`"kind":"rules_reload_failed","path":"edited.yaml","hash":"sha256:`,
		`YAML syntax`,
		`fact kind \"score\" differs in the new rules`,
		`"kind":"rules_reloaded","path":"edited.yaml","hash":"` + ruleset.HashOf([]byte(lower)) + `"`,
	} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %s", want)
		}
	}
	if eng.ReloadError() != nil {
		t.Errorf("a good reload should clear the error, got %v", eng.ReloadError())
	}
	if got := eng.Session().RuleSet().Hash(); got != ruleset.HashOf([]byte(lower)) {
		t.Errorf("running rules %s, want the edited ones", got)
	}
	// The recording carries the edited source, so a replay applies the same edits.
	assertReplays(t, sink.Bytes(), rs)
}

func TestFailedReloadKeepsRunningRules(t *testing.T) {
	rs, err := LoadRules("reload.yaml", []byte(reloadRules))
	if err != nil {
		t.Fatal(err)
	}
	src := &scriptedSource{polls: [][]byte{[]byte(strings.Replace(reloadRules, "params.goal", "params.gaol", 1))}}
	eng := NewEngine(rs, &counter{}, WithRuleSource(src))
	res, err := eng.Run(context.Background())
	if err != nil || res.Outcome != OutcomeSuccess || res.Iterations != 3 {
		t.Fatalf("%+v %v", res, err)
	}
	if eng.Session().RuleSet() != rs {
		t.Error("a bad edit replaced the running rules")
	}
	if err := eng.ReloadError(); err == nil || !strings.Contains(err.Error(), `unknown param "gaol"`) {
		t.Errorf("ReloadError = %v", err)
	}
}

func TestFileRuleSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.yaml")
	if err := os.WriteFile(path, []byte(reloadRules), 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := LoadRulesFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fs := NewFileRuleSource(path, rs)
	if _, src, err := fs.Poll(); src != nil || err != nil {
		t.Fatalf("unchanged file offered: %q %v", src, err)
	}
	edited := strings.Replace(reloadRules, "goal: 3", "goal: 4", 1)
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, src, err := fs.Poll(); string(src) != edited || err != nil {
		t.Fatalf("edit not offered: %q %v", src, err)
	}
	if _, src, _ := fs.Poll(); src != nil {
		t.Fatal("the same edit offered twice")
	}
	os.Remove(path)
	if _, _, err := fs.Poll(); err == nil {
		t.Fatal("a missing file is an error")
	}
}
