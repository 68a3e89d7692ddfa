package spine

import (
	"encoding/json"
	"testing"
)

// TestFastEncodersMatchEncodingJSON checks that the hand-written encoders write exactly
// what encoding/json writes, including strings that need escaping.
func TestFastEncodersMatchEncodingJSON(t *testing.T) {
	odd := []string{"", "plain", "with space", `quote"`, `back\slash`, "<html>&", "tab\tnew\nline", "ünïcode", "\u2028", "\x7f"}
	var bodies []fieldsAppender
	for _, s := range odd {
		bodies = append(bodies,
			transitionBody{From: s, To: "act", Event: s, Iteration: -3},
			&CycleResult{Cycle: 7, Stage: s, Scope: "all", Fired: s, DecidedBy: s,
				Evaluated:   []RuleEval{{Rule: s, Result: ResultTrue, Refracted: true}, {Rule: "x", Result: ResultError, Error: s}},
				ConflictSet: []string{s, "b"}},
			&CycleResult{Evaluated: []RuleEval{}, ConflictSet: []string{}},
		)
	}
	for _, b := range bodies {
		want, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		got := append([]byte{'{'}, b.appendFields(nil)[1:]...)
		got = append(got, '}')
		if string(got) != string(want) {
			t.Errorf("fast encoder differs:\n got %s\nwant %s", got, want)
		}
	}
}
