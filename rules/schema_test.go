package rules_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
)

const schemaLine = "# yaml-language-server: $schema=./rules.schema.json"

func validator(t *testing.T) *schemaValidator {
	t.Helper()
	src, err := fs.ReadFile(rules.FS, "rules.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := newSchemaValidator(src)
	if err != nil {
		t.Fatalf("rules.schema.json: %v", err)
	}
	return v
}

// Every shipped rule file names the schema on its first line, so that editors with a
// YAML language server validate it, and satisfies it.
func TestShippedRuleFilesMatchSchema(t *testing.T) {
	v := validator(t)
	names, err := fs.Glob(rules.FS, "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, ".domains.yaml") || strings.HasSuffix(name, ".cells.yaml") {
			continue // a rule file's signal domains or decision table, not a rule file
		}
		src, err := fs.ReadFile(rules.FS, name)
		if err != nil {
			t.Fatal(err)
		}
		if first, _, _ := strings.Cut(string(src), "\n"); first != schemaLine {
			t.Errorf("%s: first line %q, want %q", name, first, schemaLine)
		}
		errs, err := v.validateYAML(src)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, e := range errs {
			t.Errorf("%s:%s", name, e)
		}
		if _, err := engine.LoadRulesFS(rules.FS, name); err != nil {
			t.Errorf("%s satisfies the schema but does not load: %v", name, err)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("checked %d rule files; want ggs.yaml and harness.yaml at least", checked)
	}
}

const goodRules = `
version: 1
name: t
params: {low: 0.2, mode: fast, on: true}
facts:
  s:
    description: d
    fields: {x: float, n: int}
  items:
    many: true
    fields: {v: float}
objectives:
  - {name: a, score: "s == nil ? 0 : s.x", satisfied: s != nil && s.n > 2}
  - {name: z, terminal: success}
rules:
  - name: r
    salience: 1
    when: s != nil && s.x > params.low && objectives.a.score < 1
    then:
      objective: a
      assert: {kind: items, id: i1, fields: {v: 1}}
      retract: [{kind: items, id: i0}]
  - {name: q, salience: 2, when: true, then: {transition: observe}}
`

// The validator accepts a file that uses every part of the format, and rejects each
// kind of mistake with its line, column and path; spine's loader rejects the same files.
func TestSchemaValidator(t *testing.T) {
	v := validator(t)
	if errs, err := v.validateYAML([]byte(goodRules)); err != nil || len(errs) > 0 {
		t.Fatalf("a good file: %v %v", err, errs)
	}
	if _, err := engine.LoadRules("good.yaml", []byte(goodRules)); err != nil {
		t.Fatalf("the good file does not load: %v", err)
	}
	for _, tc := range []struct{ name, from, to, want string }{
		{"a rule without when", "    when: s != nil && s.x > params.low && objectives.a.score < 1\n", "",
			`16:5: rules[0]: missing required property "when"`},
		{"an unknown key", "  - {name: q, salience: 2,", "  - {name: q, colour: red, salience: 2,",
			`23:15: rules[1]: additional property "colour" is not allowed`},
		{"a bad field type", "fields: {x: float, n: int}", "fields: {x: double, n: int}",
			`8:17: facts.s.fields.x: value "double" is not one of ["float","int","bool","string","strings"]`},
		{"a fractional salience", "salience: 2,", "salience: 2.5,",
			`23:25: rules[1].salience: expected integer, got float "2.5"`},
		{"a then that does nothing", "then: {transition: observe}", "then: {}",
			"23:46: rules[1].then: has 0 properties, fewer than 1"},
		{"a param that is not an identifier", "mode: fast", "my-mode: fast",
			`4:20: params.my-mode (name): "my-mode" does not match ^[A-Za-z_][A-Za-z0-9_]*$`},
		{"a built-in fact kind", "  items:\n", "  state:\n",
			`9:3: facts.state (name): matches a schema it must not match ({"enum":["state","objective","params","objectives"]})`},
		{"a fact kind named objectives", "  items:\n", "  objectives:\n",
			`9:3: facts.objectives (name): matches a schema it must not match ({"enum":["state","objective","params","objectives"]})`},
		{"a score that is a list", `score: "s == nil ? 0 : s.x"`, `score: [1]`,
			"13:22: objectives[0].score: expected string or number, got a list"},
		{"a satisfied that is a mapping", `satisfied: s != nil && s.n > 2}`, `satisfied: {a: 1}}`,
			"13:55: objectives[0].satisfied: expected string or boolean, got a mapping"},
		{"a retraction with fields", "retract: [{kind: items, id: i0}]", "retract: [{kind: items, id: i0, fields: {v: 1}}]",
			"22:16: rules[0].then.retract: matches 0 of the oneOf alternatives, want exactly 1"},
		{"version 2", "version: 1", "version: 2", "2:10: version: value 2 is not 1"},
		{"no rules", "rules:\n", "rule:\n", `2:1: (root): missing required property "rules"`},
		{"an empty rule name", "- name: r\n", "- name: \"\"\n", `16:11: rules[0].name: "" is shorter than 1 characters`},
		{"an unknown transition", "transition: observe", "transition: act",
			`23:59: rules[1].then.transition: value "act" is not one of ["observe","terminate_or_iterate"]`},
	} {
		src := strings.Replace(goodRules, tc.from, tc.to, 1)
		if src == goodRules {
			t.Fatalf("%s: the edit changes nothing", tc.name)
		}
		errs, err := v.validateYAML([]byte(src))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(errs) == 0 || errs[0] != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, errs, tc.want)
		}
		if _, err := engine.LoadRules("bad.yaml", []byte(src)); err == nil {
			t.Errorf("%s: the schema rejects it but spine loads it", tc.name)
		}
	}
}

// A keyword the validator does not implement fails loudly instead of passing.
func TestSchemaValidatorRefusesUnknownKeywords(t *testing.T) {
	v, err := newSchemaValidator([]byte(`{"type": "object", "maxProperties": 1}`))
	if err != nil {
		t.Fatal(err)
	}
	errs, err := v.validateYAML([]byte("a: 1\n"))
	if err != nil || len(errs) != 1 || errs[0] != `1:1: (root): unsupported schema keyword "maxProperties"` {
		t.Errorf("got %q, %v", errs, err)
	}
}
