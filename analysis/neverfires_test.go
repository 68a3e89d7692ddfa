package analysis

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/rulegen"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
)

// Lint decides each rule without the partition; on every rule set the partition can be
// built for, the two must agree on every rule's status, on the rules that shadow it, and
// on the warnings.
func TestLintAgreesWithThePartition(t *testing.T) {
	ggsDomains := ggsOptions(t)
	ggsDomains.Expect = nil
	sets := []struct {
		rs  *ruleset.RuleSet
		opt Options
	}{
		{loadRules(t, "lint.yaml", lintRules), Options{}},
		{loadRules(t, "kinds.yaml", kindsRules), Options{}},
		{shipped(t, "ggs.yaml"), Options{}},
		{shipped(t, "ggs.yaml"), ggsDomains},
		{shipped(t, "harness.yaml"), Options{}},
	}
	for _, s := range sets {
		lintAgrees(t, s.rs, s.opt)
	}

	n := 400
	if testing.Short() {
		n = 60
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < n; i++ {
		src, domains := rulegen.RuleSet(rng)
		if i%2 == 1 {
			src, domains = randomKindsRuleSet(rng), ""
		}
		rs, err := engine.LoadRules(fmt.Sprintf("random%d.yaml", i), []byte(src))
		if err != nil {
			t.Fatalf("generated rule set does not load: %v\n%s", err, src)
		}
		var opt Options
		if domains != "" {
			if opt.Domains, err = ParseDomains("random.domains.yaml", []byte(domains)); err != nil {
				t.Fatal(err)
			}
		}
		if !lintAgrees(t, rs, opt) {
			t.Fatalf("rule set:\n%s\ndomains:\n%s", src, domains)
		}
	}
}

func lintAgrees(t *testing.T, rs *ruleset.RuleSet, opt Options) bool {
	t.Helper()
	want, err := Analyze(rs, opt)
	if errors.Is(err, ErrTooManyRegions) {
		return true
	}
	if err != nil {
		t.Errorf("%s: %v", rs.Path(), err)
		return false
	}
	opt.Budget = -1
	got, err := Lint(rs, opt)
	if err != nil {
		t.Errorf("%s: Lint: %v", rs.Path(), err)
		return false
	}
	ok := true
	for k, w := range want.Rules {
		g := got.Rules[k]
		if g.Status != w.Status || !slices.Equal(g.ShadowedBy, w.ShadowedBy) {
			t.Errorf("%s: rule %s: Lint says %s %v, the partition %s %v", rs.Path(), w.Name, g.Status, g.ShadowedBy, w.Status, w.ShadowedBy)
			ok = false
		}
	}
	if g, w := warningText(got.Warnings), warningText(want.Warnings); g != w {
		t.Errorf("%s: Lint warnings:\n%s\npartition warnings:\n%s", rs.Path(), g, w)
		ok = false
	}
	if got.Stopped != nil {
		t.Errorf("%s: Lint stopped without a budget: %+v", rs.Path(), got.Stopped)
		ok = false
	}
	return ok
}

func warningText(ws []Warning) string {
	var b strings.Builder
	for _, w := range ws {
		b.WriteString(w.String() + "\n")
	}
	return b.String()
}

// kindsRules spread over kinds that other rules need, need absent, or read only in part.
const kindsRules = `
facts:
  s: {fields: {x: float}}
  t: {fields: {z: float}}
  u: {fields: {w: float}}
  v: {fields: {k: float}}
objectives: [{name: a}, {name: b}]
rules:
  - {name: top_t, salience: 90, when: 't != nil && t.z > 0', then: {objective: a}}
  - {name: no_u, salience: 80, when: 'u == nil && s != nil && s.x > 5', then: {objective: a}}
  - {name: s_big, salience: 70, when: 's != nil && s.x > 1', then: {objective: a}}
  - {name: s_bigger, salience: 60, when: 's != nil && s.x > 3', then: {objective: b}}
  - {name: v_only, salience: 60, when: 'v != nil && v.k < 0', then: {objective: b}}
  - {name: v_never, salience: 50, when: 'v != nil && v.k < -1', then: {objective: b}}
  - {name: s_or_t, salience: 40, when: 's != nil && s.x > 2 || t != nil', then: {objective: b}}
`

// randomKindsRuleSet writes a rule file over four kinds, where some rules need a kind,
// some need it absent and some read it on one side of an ||.
func randomKindsRuleSet(rng *rand.Rand) string {
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	kinds := []string{"s", "t", "u", "v"}
	atom := func() string {
		k := kinds[rng.IntN(len(kinds))]
		switch rng.IntN(6) {
		case 0:
			return k + " == nil"
		case 1:
			return "(" + k + " != nil && " + k + ".x " + pick("<", ">") + " " + pick("0", "1", "2") + ")"
		case 2:
			return "(" + k + " == nil || " + k + ".x > " + pick("0", "1") + ")"
		case 3:
			return "len(" + k + ".tags) > 1"
		}
		return k + " != nil && " + k + ".x " + pick("<", ">=", "==") + " " + pick("0", "1", "2", "-1")
	}
	var b strings.Builder
	b.WriteString("facts:\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %s: {fields: {x: float, tags: strings}}\n", k)
	}
	b.WriteString("objectives: [{name: o1}, {name: o2}]\nrules:\n")
	for i, n := 0, 3+rng.IntN(8); i < n; i++ {
		c := atom()
		for rng.IntN(2) == 0 {
			c += pick(" && ", " || ") + atom()
		}
		fmt.Fprintf(&b, "  - {name: r%d, salience: %d, when: '%s', then: {objective: %s}}\n", i, rng.IntN(4), c, pick("o1", "o2"))
	}
	return b.String()
}

// When the budget runs out the rules not reached are RuleUnchecked, the ones before keep
// their status, and one warning, last, says where the analysis stopped. Steps, not time:
// the same file and budget stop at the same rule on every machine.
func TestLintStopsAtItsBudget(t *testing.T) {
	rs := loadRules(t, "thresholds.yaml", largeRuleFile("thresholds", 4000))
	rep, err := Lint(rs, Options{Budget: 5_000_000})
	if err != nil {
		t.Fatal(err)
	}
	st := rep.Stopped
	if st == nil {
		t.Fatal("the analysis did not stop")
	}
	last := rep.Warnings[len(rep.Warnings)-1]
	want := fmt.Sprintf(`thresholds.yaml:%d: warning: never-fires analysis stopped after %s steps (budget 5,000,000); %s of 4,000 rules not checked, from "%s" on`,
		st.Line, thousands(st.Steps), thousands(st.Unchecked), st.First)
	if last.Code != WarnStopped || last.String() != want {
		t.Errorf("last warning %q (%s), want %q", last, last.Code, want)
	}
	if st.Steps <= 5_000_000 || st.Steps > 5_100_000 {
		t.Errorf("stopped after %d steps, want just over the budget", st.Steps)
	}
	first := rs.Rules()[4000-st.Unchecked]
	if first.Name != st.First || first.Line != st.Line || st.Unchecked < 1000 {
		t.Errorf("stopped at %s (line %d) with %d unchecked; want the first unchecked rule, and most of them", st.First, st.Line, st.Unchecked)
	}
	for k, rr := range rep.Rules {
		if checked := k < 4000-st.Unchecked; checked == (rr.Status == RuleUnchecked) {
			t.Fatalf("rule %s: status %s", rr.Name, rr.Status)
		}
		if k > 0 && k < 4000-st.Unchecked && rr.Status != RuleShadowed {
			t.Fatalf("rule %s: status %s, want shadowed", rr.Name, rr.Status)
		}
	}
	again, err := Lint(rs, Options{Budget: 5_000_000})
	if err != nil || warningText(again.Warnings) != warningText(rep.Warnings) {
		t.Errorf("a second run differs: %v", err)
	}
	if all, err := Lint(rs, Options{Budget: -1}); err != nil || all.Stopped != nil || len(all.Warnings) != 3999 {
		t.Errorf("without a budget: %v, stopped %+v, %d warnings, want 3999", err, all.Stopped, len(all.Warnings))
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 200000000: "200,000,000", -12345: "-12,345"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
