package analysis

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

func ggsRules(t *testing.T) (*ruleset.RuleSet, Options) {
	t.Helper()
	rs, err := engine.LoadRulesFile("../rules/ggs.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src, _ := rs.DomainsSource()
	d, err := ParseDomains("../rules/ggs.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	return rs, Options{Domains: d}
}

// TestGGSMap: the cascade as seed 000 draws it, each cell won by the rule the table
// names, the cuts at the params.
func TestGGSMap(t *testing.T) {
	rs, opt := ggsRules(t)
	m, err := GGSMap(rs, opt)
	if err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, s := range m.Slices {
		var cells []string
		for _, c := range s.Cells {
			x := s.X.Pieces[c.X]
			cell := fmt.Sprintf("%s[%.2g,%.2g]", s.X.Field, x.Lo, x.Hi)
			if s.Y != nil {
				y := s.Y.Pieces[c.Y]
				cell += fmt.Sprintf("×[%.2g,%.2g]", y.Lo, y.Hi)
			}
			cells = append(cells, cell+"="+c.Rule)
		}
		got = append(got, strings.Join(cells, " "))
	}
	want := []string{
		"signals.omega[0,0.8]=change_path_stuck_environmental signals.omega[0.8,1]=abandon_budget_spent",
		"signals.D[0,0.3]=success_within_delta signals.D[0.3,1]=change_path_stuck_environmental",
		"signals.P[0,0.5]×[-1.3,-0.1]=refine_moving_environmental signals.P[0,0.5]×[-0.1,0.1]=change_path_stuck_environmental signals.P[0,0.5]×[0.1,1.3]=refine_moving_environmental " +
			"signals.P[0.5,1]×[-1.3,-0.1]=change_approach_moving_logical signals.P[0.5,1]×[-0.1,0.1]=break_symmetry_stuck_logical signals.P[0.5,1]×[0.1,1.3]=change_approach_moving_logical",
	}
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("slice %d:\n got %s\nwant %s", i+1, got[min(i, len(got)-1)], want[i])
		}
	}
	if strings.Join(m.Params, " ") != "theta = 0.8 delta = 0.3 epsilon = 0.1 rho = 0.5" {
		t.Errorf("params %v", m.Params)
	}
}

func TestMapAxesErrors(t *testing.T) {
	rs, opt := ggsRules(t)
	_, err := MapAxes(rs, opt, "signals.nope", "signals.P", nil)
	if err == nil || !strings.Contains(err.Error(), "signals.nope is not a numeric field") || !strings.Contains(err.Error(), "signals.omega") {
		t.Errorf("err = %v, want one naming the field and the ones that can be drawn", err)
	}
}
