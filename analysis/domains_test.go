package analysis

import (
	"errors"
	"math"
	"reflect"
	"testing"

	"github.com/agentspine/spine/spine/ruleset"
)

func TestParseDomains(t *testing.T) {
	src := `
signals: present
signals.round: {min: 0, max: 1000, integer: true}
signals.D: [0, 1]
signals.grad: {min: -1.5}
signals.all_matched: bool
signals.mode: [fast, slow]
signals.tier: {values: [3, 1, 2]}
other: optional
`
	d, err := ParseDomains("d.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	inf := math.Inf(1)
	want := []Domain{
		{Key: "signals", Kind: "signals", Line: 2, Col: 1, Form: FormPresence, Present: true},
		{Key: "signals.round", Kind: "signals", Field: "round", Line: 3, Col: 1, Form: FormRange, Min: 0, Max: 1000, Integer: true},
		{Key: "signals.D", Kind: "signals", Field: "D", Line: 4, Col: 1, Form: FormRange, Min: 0, Max: 1},
		{Key: "signals.grad", Kind: "signals", Field: "grad", Line: 5, Col: 1, Form: FormRange, Min: -1.5, Max: inf},
		{Key: "signals.all_matched", Kind: "signals", Field: "all_matched", Line: 6, Col: 1, Form: FormBool},
		{Key: "signals.mode", Kind: "signals", Field: "mode", Line: 7, Col: 1, Form: FormStrings, Strings: []string{"fast", "slow"}},
		{Key: "signals.tier", Kind: "signals", Field: "tier", Line: 8, Col: 1, Form: FormNumbers, Numbers: []float64{3, 1, 2}},
		{Key: "other", Kind: "other", Line: 9, Col: 1, Form: FormPresence},
	}
	if !reflect.DeepEqual(d.Entries, want) {
		t.Errorf("entries:\n%+v\nwant\n%+v", d.Entries, want)
	}
	for _, empty := range []string{"", "# nothing\n", "~\n"} {
		d, err := ParseDomains("e.yaml", []byte(empty))
		if err != nil || len(d.Entries) != 0 {
			t.Errorf("%q: %v, %d entries", empty, err, len(d.Entries))
		}
	}
}

// Every problem of a domains file is reported with its position and an exact text.
func TestDomainsErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"- a\n", "d.yaml:1:1: expected a mapping of signal: domain, got a list"},
		{"signals: [\n", "d.yaml:1:1: YAML syntax: did not find expected node content"},
		{"signals..D: [0, 1]\n", `d.yaml:1:1: key "signals..D": expected kind or kind.field (identifiers)`},
		{"a.b.c: bool\n", `d.yaml:1:1: key "a.b.c": expected kind or kind.field (identifiers)`},
		{"params.theta: [0, 1]\n", "d.yaml:1:1: params.theta: params are fixed values, not signals"},
		{"signals: always\n", `d.yaml:1:10: signals: expected present or optional, got "always"`},
		{"signals.D: [0, 1]\nsignals.D: bool\n", "d.yaml:2:1: signals.D: given twice (first on line 1)"},
		{"signals.D: number\n", `d.yaml:1:12: signals.D: expected [min, max], {min, max, integer}, {values: [...]}, a list of strings or bool, got "number"`},
		{"signals.D: 3\n", "d.yaml:1:12: signals.D: expected [min, max], {min, max, integer}, {values: [...]}, a list of strings or bool, got the number 3"},
		{"signals.D: []\n", "d.yaml:1:12: signals.D: the list is empty"},
		{"signals.D: [0, 1, 2]\n", "d.yaml:1:12: signals.D: a list of numbers is a range [min, max] and takes two numbers, got 3 (for a set of numbers write {values: [...]})"},
		{"signals.D: [1, 0]\n", "d.yaml:1:12: signals.D: min 1 is greater than max 0"},
		{"signals.D: [0, a]\n", "d.yaml:1:12: signals.D: the list mixes numbers and strings"},
		{"signals.D: [0, .inf]\n", "d.yaml:1:16: signals.D: .inf is not a finite number within ±1e15"},
		{"signals.D: [0, true]\n", "d.yaml:1:16: signals.D: expected numbers or strings in the list, got the bool true"},
		{"signals.m: [a, b, a]\n", `d.yaml:1:19: signals.m: value "a" is listed twice`},
		{"signals.D: {values: [1, 1]}\n", "d.yaml:1:25: signals.D: value 1 is listed twice"},
		{"signals.D: {min: x}\n", `d.yaml:1:18: signals.D: min: expected a number, got "x"`},
		{"signals.D: {mn: 0}\n", `d.yaml:1:13: signals.D: unknown key "mn" (expected min, max, integer or values)`},
		{"signals.D: {min: 0, min: 1}\n", `d.yaml:1:21: signals.D: key "min" is given twice`},
		{"signals.D: {integer: yes}\n", `d.yaml:1:22: signals.D: integer: expected true or false, got "yes"`},
		{"signals.D: {values: 3}\n", "d.yaml:1:21: signals.D: values: expected a list, got the number 3"},
		{"signals.D: {values: [1], min: 0}\n", "d.yaml:1:12: signals.D: values cannot be combined with min, max or integer"},
		{"signals.D: {}\n", "d.yaml:1:12: signals.D: give min, max, integer or values"},
		{"signals.n: {min: 0.2, max: 0.8, integer: true}\n", "d.yaml:1:12: signals.n: the range [0.2, 0.8] holds no integer"},
	} {
		_, err := ParseDomains("d.yaml", []byte(tc.src))
		var fe ruleset.LoadErrors
		if !errors.As(err, &fe) || len(fe) == 0 {
			t.Errorf("%q: got %v, want ruleset.LoadErrors", tc.src, err)
			continue
		}
		if got := fe[0].File + ":" + itoa(fe[0].Line) + ":" + itoa(fe[0].Col) + ": " + fe[0].Msg; got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

// Every problem is reported, not only the first, each with a caret snippet.
func TestDomainsErrorsAll(t *testing.T) {
	_, err := ParseDomains("d.yaml", []byte("signals: maybe\nsignals.D: [1, 0]\n"))
	want := "d.yaml:1:10: signals: expected present or optional, got \"maybe\"\n" +
		"    1 | signals: maybe\n" +
		"      |          ^\n" +
		"d.yaml:2:12: signals.D: min 1 is greater than max 0\n" +
		"    2 | signals.D: [1, 0]\n" +
		"      |            ^"
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

// Domains that parse but do not fit the rule set are refused when the analysis binds them.
func TestDomainsBindErrors(t *testing.T) {
	rs := loadRules(t, "r.yaml", `
facts:
  s:
    fields: {x: float, n: int, ok: bool, name: string, tags: strings}
  items:
    many: true
    fields: {v: float}
objectives: [{name: a}]
rules:
  - {name: r, salience: 1, when: 's != nil && s.x > 0', then: {objective: a}}
`)
	for _, tc := range []struct{ src, want string }{
		{"t: present\n", `d.yaml:1:1: t: no fact kind "t" (kinds: s, items)`},
		{"items: present\n", `d.yaml:1:1: items: kind "items" holds many facts; conditions over lists are not analysed, so it takes no domain`},
		{"s.y: [0, 1]\n", `d.yaml:1:1: s.y: kind "s" has no field "y" (fields: x, n, ok, name, tags)`},
		{"state: optional\n", "d.yaml:1:1: state: the engine sets the state before every cycle, so it is always present"},
		{"state.name: [observe]\n", "d.yaml:1:1: state.name: the analysis models select_objective cycles, so state.name takes no domain"},
		{"s.ok: [0, 1]\n", "d.yaml:1:1: s.ok: a range fits float and int fields, not a bool field"},
		{"s.n: [0.2, 0.8]\n", "d.yaml:1:1: s.n: the range [0.2, 0.8] holds no integer, and n is an int field"},
		{"s.n: {values: [1, 1.5]}\n", "d.yaml:1:1: s.n: 1.5 is not an integer, and n is an int field"},
		{"s.name: {values: [1]}\n", "d.yaml:1:1: s.name: a set of numbers fits float and int fields, not a string field"},
		{"s.x: bool\n", "d.yaml:1:1: s.x: bool fits bool fields, not a float field"},
		{"s.x: [a, b]\n", "d.yaml:1:1: s.x: a set of strings fits string fields, not a float field"},
		{"s.tags: [a, b]\n", "d.yaml:1:1: s.tags: a set of strings fits string fields, not a strings field"},
	} {
		d, err := ParseDomains("d.yaml", []byte(tc.src))
		if err != nil {
			t.Fatalf("%q: %v", tc.src, err)
		}
		_, err = Analyze(rs, Options{Domains: d})
		var fe ruleset.LoadErrors
		if !errors.As(err, &fe) {
			t.Errorf("%q: got %v, want ruleset.LoadErrors", tc.src, err)
			continue
		}
		if got := fe[0].File + ":" + itoa(fe[0].Line) + ":" + itoa(fe[0].Col) + ": " + fe[0].Msg; got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}

func itoa(n int) string { return formatValue(n) }

func TestExpectationsErrors(t *testing.T) {
	rs := shipped(t, "ggs.yaml")
	for _, tc := range []struct{ src, want string }{
		{"", "x.yaml:1:1: empty expectations file: expected a mapping with tables"},
		{"cells: []\n", `x.yaml:1:1: unknown key "cells" in expectations file (expected one of: tables)`},
		{"tables: []\n", "x.yaml:1:9: tables: expected a non-empty list of tables, got a list"},
		{"tables:\n  - name: t\n", `x.yaml:2:5: table is missing required key "cells"`},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'true'}]}\n", `x.yaml:2:23: cell "c": give either objective or rule`},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'signals.Dx > 0', objective: plan}]}\n", `x.yaml:2:23: table "t", cell "c": kind "signals" has no field "Dx"`},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'signals.D > params.nope', objective: plan}]}\n", `x.yaml:2:23: table "t", cell "c": unknown param "nope"`},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'true', objective: fly}]}\n", `x.yaml:2:23: table "t", cell "c": "fly" is not a declared objective`},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'true', rule: fly}]}\n", `x.yaml:2:23: table "t", cell "c": no rule "fly" in ggs.yaml`},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'signals.D * 2 > 1', objective: plan}]}\n", "x.yaml:2:23: table \"t\", cell \"c\": cannot analyse `signals.D * 2 > 1` (does arithmetic on a field)"},
		{"tables:\n  - {name: t, cells: [{name: c, when: 'signals.D >', objective: plan}]}\n", `x.yaml:2:23: table "t", cell "c": does not parse: unexpected token EOF (1:11)`},
	} {
		x, err := ParseExpectations("x.yaml", []byte(tc.src))
		if err == nil {
			_, err = Analyze(rs, Options{Expect: x})
		}
		var fe ruleset.LoadErrors
		if !errors.As(err, &fe) {
			t.Errorf("%q: got %v, want ruleset.LoadErrors", tc.src, err)
			continue
		}
		if got := fe[0].File + ":" + itoa(fe[0].Line) + ":" + itoa(fe[0].Col) + ": " + fe[0].Msg; got != tc.want {
			t.Errorf("%q:\n got %s\nwant %s", tc.src, got, tc.want)
		}
	}
}
