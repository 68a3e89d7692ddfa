package analysis

import "testing"

// A rule a param switches off is reported off, with no warning, by the partition and by
// Lint alike; a literal false or a condition false over the signals still warns.
func TestRuleOffByParam(t *testing.T) {
	const src = `version: 1
name: off
params:
  cap: 0
  limit: 3
facts:
  s:
    fields:
      n: int
rules:
  - name: capped
    salience: 20
    when: s != nil && params.cap > 0 && s.n >= params.cap
    then: {objective: stop}
  - name: literal
    salience: 15
    when: s != nil && false
    then: {objective: stop}
  - name: impossible
    salience: 12
    when: s != nil && s.n > params.limit && s.n < params.limit
    then: {objective: stop}
  - name: rest
    salience: 10
    when: s != nil
    then: {objective: go}
objectives:
  - name: stop
  - name: go
`
	rs := loadRules(t, "off.yaml", src)
	want := map[string]string{"capped": RuleOff, "literal": RuleUnsatisfiable, "impossible": RuleUnsatisfiable, "rest": RuleFires}
	for _, which := range []string{"partition", "lint"} {
		var rep *Report
		var err error
		if which == "partition" {
			rep, err = Analyze(rs, Options{})
		} else {
			rep, err = Lint(rs, Options{})
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, rr := range rep.Rules {
			if rr.Status != want[rr.Name] {
				t.Errorf("%s: rule %s is %s, want %s", which, rr.Name, rr.Status, want[rr.Name])
			}
			if rr.Name == "capped" && rr.OffBy != "params.cap > 0" {
				t.Errorf("%s: capped is off by %q", which, rr.OffBy)
			}
		}
		var warned []string
		for _, w := range rep.Warnings {
			warned = append(warned, w.String())
		}
		if len(warned) != 2 {
			t.Errorf("%s: warnings %q, want the two unsatisfiable rules only", which, warned)
		}
	}
}
