package scripted

import (
	"testing"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

func loadGGS(t *testing.T) *ruleset.RuleSet {
	t.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
