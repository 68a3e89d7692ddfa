package scripted

import (
	"testing"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine"
)

func loadGGS(t *testing.T) *spine.RuleSet {
	t.Helper()
	rs, err := spine.LoadRulesFS(rules.FS, rules.GGS)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}
