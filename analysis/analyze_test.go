package analysis

import (
	"strings"
	"testing"
)

// The shipped GGS rules reproduce seed 000's decision table: the six macro-states, all
// 24 cells at every replan count, Law 2 and the overrides around them, with no gap and no
// overlap. The opt-in replan cap is off: its rule and its cell are reported off.
func TestGGSReproducesTheSeedTable(t *testing.T) {
	rep := analyze(t, shipped(t, "ggs.yaml"), ggsOptions(t))
	checkSeedTable(t, rep, "params.replan_cap > 0")
	for _, rr := range rep.Rules {
		if rr.Name == "abandon_replans_spent" && (rr.Status != RuleOff || rr.OffBy != "params.replan_cap > 0") {
			t.Errorf("the replan cap's rule: status %s (%q), want off", rr.Status, rr.OffBy)
		}
	}
	checkGolden(t, "ggs.analysis.golden", reportText(t, rep))
}

// With the replan cap switched on, the same expectations hold: the cap's cell is checked
// and the 24 cells hold below it.
func TestGGSWithReplanCapOn(t *testing.T) {
	src := strings.Replace(shippedSource(t, "ggs.yaml"), "replan_cap: 0 ", "replan_cap: 3 ", 1)
	rep := analyze(t, loadRules(t, "ggs.yaml", src), ggsOptions(t))
	checkSeedTable(t, rep, "")
}

func checkSeedTable(t *testing.T, rep *Report, off string) {
	t.Helper()
	if g := rep.Gaps(); len(g) != 0 {
		t.Errorf("gaps: %d, first %s", len(g), g[0].Condition())
	}
	if o := rep.Overlaps(); len(o) != 0 {
		t.Errorf("overlaps: %d, first %s", len(o), o[0].Condition())
	}
	if u := rep.Undecided(); len(u) != 0 {
		t.Errorf("undecided: %d", len(u))
	}
	if len(rep.Warnings) != 0 {
		t.Errorf("warnings: %v", rep.Warnings)
	}
	if len(rep.Cells) != 43 {
		t.Fatalf("%d cells, want 6 macro-states + 24 cells + 4 overrides + 3 faults + 6 memory rulings", len(rep.Cells))
	}
	offs := 0
	for _, c := range rep.Cells {
		if !c.OK() {
			t.Errorf("cell %s / %s fails: %+v", c.Table, c.Cell, c.Failures)
		}
		if c.Off != "" {
			offs++
			if c.Off != off {
				t.Errorf("cell %s is off by %q, want %q", c.Cell, c.Off, off)
			}
			continue
		}
		if c.Regions == 0 {
			t.Errorf("cell %s checked nothing", c.Cell)
		}
	}
	if want := map[bool]int{true: 0, false: 1}[off == ""]; offs != want {
		t.Errorf("%d cells off, want %d", offs, want)
	}
	// Each rule that is on wins exactly its macro-state: one region each; memory_allowed
	// wins one for Exploit, one for Ignore and one for Caution under the run's policy
	// allow, and memory_caution_refused one for the run's policy refuse and one for no
	// policy of the run's under the shipped param.
	for _, rr := range rep.Rules {
		if rr.Status == RuleOff && off != "" {
			continue
		}
		want := map[string]int{"memory_allowed": 3, "memory_caution_refused": 2}[rr.Name]
		if want == 0 {
			want = 1
		}
		if rr.Status != RuleFires || len(rr.Wins) != want {
			t.Errorf("rule %s: status %s, wins %v", rr.Name, rr.Status, rr.Wins)
		}
	}
}

func TestHarnessAnalysis(t *testing.T) {
	rep := analyze(t, shipped(t, "harness.yaml"), Options{})
	if len(rep.Gaps()) != 0 || len(rep.Overlaps()) != 0 || len(rep.Undecided()) != 0 {
		t.Errorf("gaps %d, overlaps %d, undecided %d", len(rep.Gaps()), len(rep.Overlaps()), len(rep.Undecided()))
	}
	checkGolden(t, "harness.analysis.golden", reportText(t, rep))
}

// Without domains, a kind the rules test for nil may be absent: the shipped GGS rules then
// have a gap (no signals yet), which the witness shows.
func TestGGSWithoutDomainsHasAbsentSignalsGap(t *testing.T) {
	rep := analyze(t, shipped(t, "ggs.yaml"), Options{})
	var conds []string
	for _, g := range rep.Gaps() {
		conds = append(conds, g.Condition()+" | "+g.Witness.String())
	}
	sig := "signals{round: -1, D: 0, P: 0, omega: 0, beta_eff: 0, L: 0, grad: 0, worsening: 0, replans: 0, all_matched: false, fault: 0}"
	want := []string{
		// A memory pair whose action or policy no memory_* rule names falls through to
		// the GGS rules, which have the same gaps.
		`memory_pair != nil && memory_pair.action == "Caution" && memory_pair.policy not in ["", "allow", "log", "refuse"] && signals != nil && signals.round < 0 | ` + sig + `; memory_pair{space: "", entity: "", m_att: 0, m_dec: 0, action: "Caution", policy: "other"}`,
		`memory_pair != nil && memory_pair.action == "Caution" && memory_pair.policy not in ["", "allow", "log", "refuse"] && signals == nil | memory_pair{space: "", entity: "", m_att: 0, m_dec: 0, action: "Caution", policy: "other"}; signals absent`,
		`memory_pair != nil && memory_pair.action not in ["Avoid", "Caution", "Exploit", "Ignore"] && signals != nil && signals.round < 0 | ` + sig + `; memory_pair{space: "", entity: "", m_att: 0, m_dec: 0, action: "other", policy: ""}`,
		`memory_pair != nil && memory_pair.action not in ["Avoid", "Caution", "Exploit", "Ignore"] && signals == nil | memory_pair{space: "", entity: "", m_att: 0, m_dec: 0, action: "other", policy: ""}; signals absent`,
		// round is an int without bounds: a negative round is a gap too.
		"memory_pair == nil && signals != nil && signals.round < 0 | " + sig + "; memory_pair absent",
		"memory_pair == nil && signals == nil | signals absent; memory_pair absent",
	}
	if strings.Join(conds, "\n") != strings.Join(want, "\n") {
		t.Errorf("gaps:\n%s\nwant:\n%s", strings.Join(conds, "\n"), strings.Join(want, "\n"))
	}
}

// The lint rule set has one of each finding; the golden file holds the exact texts.
func TestWarnings(t *testing.T) {
	rs := loadRules(t, "lint.yaml", lintRules)
	rep := analyze(t, rs, Options{})
	var codes []string
	for _, w := range rep.Warnings {
		codes = append(codes, w.Code)
	}
	want := []string{WarnUnusedParam, WarnShadowed, WarnUnsatisfiable, WarnNotAnalysable}
	for _, c := range want {
		if !strings.Contains(strings.Join(codes, " "), c) {
			t.Errorf("no %s warning in %v", c, codes)
		}
	}
	checkGolden(t, "lint.analysis.golden", reportText(t, rep))
}

const lintRules = `
params: {low: 0.2, high: 0.8, unused: 3, mode: fast}
facts:
  s:
    fields: {x: float, y: float, n: int, ok: bool, name: string, tags: strings}
objectives: [{name: a}, {name: b}, {name: c}, {name: d, terminal: success}]
rules:
  - {name: big, salience: 90, when: 's != nil && s.x > params.low', then: {objective: a}}
  - {name: bigger, salience: 80, when: 's != nil && s.x > params.high', then: {objective: b}}
  - {name: never, salience: 70, when: 's != nil && s.x > params.high && s.x < params.low', then: {objective: c}}
  - {name: tags, salience: 60, when: 's != nil && len(s.tags) > 2', then: {objective: c}}
  - {name: twin1, salience: 50, when: 's != nil && s.ok', then: {objective: c}}
  - {name: twin2, salience: 50, when: 's != nil && s.name == params.mode', then: {objective: d}}
`
