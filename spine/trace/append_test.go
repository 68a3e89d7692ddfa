package trace

import (
	"encoding/json"
	"testing"
)

// TestRuleFiredEncodedMatchesRuleFired checks that rule_fired written from a then
// encoded in advance is what encoding/json writes for the RuleFired body.
func TestRuleFiredEncodedMatchesRuleFired(t *testing.T) {
	thens := []*Then{
		nil,
		{},
		{Objective: "plan", Transition: "reobserve"},
		{Assert: []FactAction{{Kind: "note", ID: "n<1>", Fields: json.RawMessage(`{"text":"a&b"}`)}}, Retract: []FactAction{{Kind: "note"}}},
	}
	for _, name := range []string{"", "plain", `quote"`, "<html>&", "ünïcode\u2028"} {
		for _, then := range thens {
			body := RuleFired{Cycle: 4, Rule: name, Salience: -2, Then: then}
			want, err := json.Marshal(body)
			if err != nil {
				t.Fatal(err)
			}
			var enc json.RawMessage
			if then != nil {
				if enc, err = json.Marshal(then); err != nil {
					t.Fatal(err)
				}
			}
			f := &RuleFiredEncoded{Cycle: 4, Rule: name, Salience: -2, Then: enc}
			got := append(append([]byte{'{'}, f.AppendFields(nil)[1:]...), '}')
			if string(got) != string(want) {
				t.Errorf("rule %q: RuleFiredEncoded differs:\n got %s\nwant %s", name, got, want)
			}
		}
	}
}
