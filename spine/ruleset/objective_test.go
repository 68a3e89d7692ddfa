package ruleset

import (
	"fmt"
	"testing"
)

// objectiveFile is a rule file whose objectives part is replaced by each case.
const objectiveFile = `params: {floor: 0.5, label: x}
facts:
  s:
    fields: {x: float, ok: bool, n: int, name: string}
  items:
    many: true
    fields: {v: float}
objectives:
%s
rules:
  - name: r
    salience: 1
    when: %s
    then: {objective: a}
`

func TestObjectiveLoadErrors(t *testing.T) {
	for _, tc := range []struct{ name, objectives, when, want string }{
		{"score not a number", `  - {name: a, score: "s != nil && s.ok"}`, "true",
			`o.yaml:9:23: objective "a": score: expected a number, got bool
    9 |   - {name: a, score: "s != nil && s.ok"}
      |                       ^`},
		{"satisfied not a bool", `  - {name: a, satisfied: "s.x + 1"}`, "true",
			`o.yaml:9:27: objective "a": satisfied: expected a bool, got float64
    9 |   - {name: a, satisfied: "s.x + 1"}
      |                           ^`},
		{"unknown field", `  - {name: a, score: "s == nil ? 0 : s.y"}`, "true",
			`o.yaml:9:40: objective "a": score: unknown field "y" of fact kind "s" (fields: n, name, ok, x)
    9 |   - {name: a, score: "s == nil ? 0 : s.y"}
      |                                        ^`},
		{"unknown param", `  - {name: a, satisfied: "params.flor > 0"}`, "true",
			`o.yaml:9:34: objective "a": satisfied: unknown param "flor" (params: floor, label)
    9 |   - {name: a, satisfied: "params.flor > 0"}
      |                                  ^`},
		{"syntax", `  - {name: a, score: "1 +"}`, "true",
			`o.yaml:9:25: objective "a": score: unexpected token EOF
    9 |   - {name: a, score: "1 +"}
      |                         ^`},
		{"empty", `  - {name: a, score: "  "}`, "true",
			`o.yaml:9:22: objective "a": score: empty expression
    9 |   - {name: a, score: "  "}
      |                      ^`},
		{"not a string", `  - {name: a, score: [1]}`, "true",
			`o.yaml:9:22: objective "a": score: expected a string, got a list
    9 |   - {name: a, score: [1]}
      |                      ^`},
		{"wall clock", `  - {name: a, score: "now().Unix()"}`, "true",
			`o.yaml:9:23: objective "a": score: unknown name now (objectives may not read the wall clock; give the time to them as a fact)
    9 |   - {name: a, score: "now().Unix()"}
      |                       ^`},
		{"multi-line", "  - name: a\n    score: >\n      s == nil\n      ? 0 : s.nope", "true",
			`o.yaml:12:15: objective "a": score: unknown field "nope" of fact kind "s" (fields: n, name, ok, x)
   12 |       ? 0 : s.nope
      |               ^`},
		{"reads itself", `  - {name: a, score: "objectives.a.score"}`, "true",
			`o.yaml:9:34: objective "a": score: objective "a" cannot read itself
    9 |   - {name: a, score: "objectives.a.score"}
      |                                  ^`},
		{"reads a later one", "  - {name: a, score: \"objectives.b.score\"}\n  - {name: b, score: \"1\"}", "true",
			`o.yaml:9:34: objective "a": score: objective "b" is declared after "a"; an objective reads only those declared before it
    9 |   - {name: a, score: "objectives.b.score"}
      |                                  ^`},
		{"reads an unscored one", "  - {name: b}\n  - {name: a, score: \"objectives.b.score\"}", "true",
			`o.yaml:10:34: objective "a": score: objective "b" declares no score or satisfied (scored objectives: a)
   10 |   - {name: a, score: "objectives.b.score"}
      |                                  ^`},
		{"reads an undeclared part", "  - {name: b, score: \"1\"}\n  - {name: a, satisfied: \"objectives.b.satisfied\"}", "true",
			`o.yaml:10:40: objective "a": satisfied: objective "b" declares no satisfied
   10 |   - {name: a, satisfied: "objectives.b.satisfied"}
      |                                        ^`},
		{"reads an unknown part", "  - {name: b, score: \"1\"}\n  - {name: a, satisfied: \"objectives.b.done\"}", "true",
			`o.yaml:10:40: objective "a": satisfied: objective "b" has no "done" (an objective has score and satisfied)
   10 |   - {name: a, satisfied: "objectives.b.done"}
      |                                        ^`},
		{"reads objectives whole", "  - {name: b, score: \"1\"}\n  - {name: a, satisfied: \"objectives != nil\"}", "true",
			`o.yaml:10:27: objective "a": satisfied: read objectives by name, as objectives.NAME.score or objectives.NAME.satisfied
   10 |   - {name: a, satisfied: "objectives != nil"}
      |                           ^`},
		{"rule reads an unknown objective", `  - {name: a, score: "1"}`, "objectives.zz.score > 0",
			`o.yaml:13:22: rule "r": when: unknown objective "zz" (scored objectives: a)
   13 |     when: objectives.zz.score > 0
      |                      ^`},
		{"rule reads an unscored objective", "  - {name: a, score: \"1\"}\n  - {name: b}", "objectives.b.satisfied",
			`o.yaml:14:22: rule "r": when: objective "b" declares no score or satisfied (scored objectives: a)
   14 |     when: objectives.b.satisfied
      |                      ^`},
		{"rule reads an undeclared part", `  - {name: a, score: "1"}`, "objectives.a.satisfied",
			`o.yaml:13:24: rule "r": when: objective "a" declares no satisfied
   13 |     when: objectives.a.satisfied
      |                        ^`},
		{"rule compares a score with a string", `  - {name: a, score: "1"}`, "objectives.a.score == 'x'",
			`o.yaml:13:30: rule "r": when: invalid operation: == (mismatched types float64 and string)
   13 |     when: objectives.a.score == 'x'
      |                              ^`},
		{"rule reads objectives by index", `  - {name: a, score: "1"}`, "objectives[s.name].score > 0",
			`o.yaml:13:11: rule "r": when: read objectives by name, as objectives.NAME.score or objectives.NAME.satisfied
   13 |     when: objectives[s.name].score > 0
      |           ^`},
		{"rule without scored objectives", `  - {name: a}`, "objectives.a.score > 0",
			`o.yaml:13:22: rule "r": when: objective "a" declares no score or satisfied (no objective declares a score or satisfied)
   13 |     when: objectives.a.score > 0
      |                      ^`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := fmt.Sprintf(objectiveFile, tc.objectives, tc.when)
			_, err := Load("o.yaml", []byte(src))
			if err == nil {
				t.Fatalf("loaded; want:\n%s", tc.want)
			}
			if err.Error() != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", err, tc.want)
			}
		})
	}
}
