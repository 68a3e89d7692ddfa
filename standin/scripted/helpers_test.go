package scripted

import (
	"testing"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
)

func loadGGS(t *testing.T) *engine.RuleSet {
	t.Helper()
	rs, err := engine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
