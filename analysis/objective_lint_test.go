package analysis

import (
	"strings"
	"testing"
)

// A param read only by an objective's score or satisfied is not reported as unused; one
// nothing reads still is.
func TestParamsReadByObjectives(t *testing.T) {
	rs := loadRules(t, "obj.yaml", `
params: {target: 0.5, floor: 0.1, unused: 3}
facts:
  s:
    fields: {x: float}
objectives:
  - {name: a, score: "s == nil ? params.floor : s.x", satisfied: "s != nil && s.x >= params.target"}
  - {name: b, terminal: success}
rules:
  - {name: r, salience: 1, when: 's != nil', then: {objective: b}}
`)
	rep := analyze(t, rs, Options{})
	var unused []string
	for _, w := range rep.Warnings {
		if w.Code == WarnUnusedParam {
			unused = append(unused, w.Msg)
		}
	}
	if got := strings.Join(unused, "\n"); got != `param "unused" is not read by any rule` {
		t.Errorf("unused-param warnings:\n%s", got)
	}
}
