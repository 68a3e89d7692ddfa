package ruleset

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentspine/spine/internal/golden"
)

var rewrite = flag.Bool("rewrite", false, "rewrite golden files")

// TestLoadErrors loads every testdata/load/<name>.yaml, each broken in one way (or, for
// many_problems, several), and compares the full error text with <name>.err.
func TestLoadErrors(t *testing.T) {
	paths, err := filepath.Glob("testdata/load/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no cases in testdata/load")
	}
	for _, path := range paths {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := Load(filepath.ToSlash(path), src)
			if err == nil {
				t.Fatalf("loaded without error (%d rules); want a load error", len(rs.Rules()))
			}
			if rs != nil {
				t.Errorf("a failed load returned a rule set")
			}
			var les LoadErrors
			if !errors.As(err, &les) || len(les) == 0 {
				t.Fatalf("error is %T, want a non-empty LoadErrors: %v", err, err)
			}
			for _, e := range les {
				if e.File != filepath.ToSlash(path) || e.Line < 1 || e.Col < 1 {
					t.Errorf("error without a position: %+v", e)
				}
			}
			got := err.Error() + "\n"
			goldenPath := strings.TrimSuffix(path, ".yaml") + ".err"
			golden.Check(t, goldenPath, []byte(got), *rewrite)
		})
	}
}

// TestLoadErrorsFileOrder checks that a file with several problems reports every one of
// them, sorted by line and column.
func TestLoadErrorsFileOrder(t *testing.T) {
	src, err := os.ReadFile("testdata/load/many_problems.yaml")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Load("many_problems.yaml", src)
	var les LoadErrors
	if !errors.As(err, &les) {
		t.Fatalf("want LoadErrors, got %v", err)
	}
	wantMsgs := []string{
		`unknown type "date"`,
		`salience: expected an integer`,
		`unknown param "thet"`,
		`unknown field "omga"`,
		`"finished" is not a declared objective`,
		`duplicate rule name "first"`,
		`"evaluate" is not a state a rule may request`,
	}
	if len(les) != len(wantMsgs) {
		t.Fatalf("got %d errors, want %d:\n%v", len(les), len(wantMsgs), err)
	}
	for i, e := range les {
		if !strings.Contains(e.Msg, wantMsgs[i]) {
			t.Errorf("error %d = %q, want it to contain %q", i, e.Msg, wantMsgs[i])
		}
		if i > 0 {
			p := les[i-1]
			if p.Line > e.Line || (p.Line == e.Line && p.Col > e.Col) {
				t.Errorf("error %d (%d:%d) comes after error %d (%d:%d)", i, e.Line, e.Col, i-1, p.Line, p.Col)
			}
		}
	}
}

const okRules = `version: 1
name: tiny
description: a small valid rule set
params:
  theta: 0.8
  label: fast
  strict: true
facts:
  signals:
    fields:
      omega: float
objectives:
  - name: done
    terminal: success
rules:
  - name: a
    salience: 1
    when: signals != nil && signals.omega >= params.theta && params.strict
    then: {objective: done}
`

func TestLoadRulesValid(t *testing.T) {
	rs, err := Load("tiny.yaml", []byte(okRules))
	if err != nil {
		t.Fatal(err)
	}
	if rs.Name() != "tiny" || rs.Path() != "tiny.yaml" || rs.Description() != "a small valid rule set" {
		t.Errorf("name/path/description = %q %q %q", rs.Name(), rs.Path(), rs.Description())
	}
	if v, ok := rs.Param("theta"); !ok || v != 0.8 {
		t.Errorf("Param(theta) = %v, %v", v, ok)
	}
	if v, ok := rs.Param("label"); !ok || v != "fast" {
		t.Errorf("Param(label) = %v, %v", v, ok)
	}
	if v, ok := rs.Param("strict"); !ok || v != true {
		t.Errorf("Param(strict) = %v, %v", v, ok)
	}
	if _, ok := rs.Param("missing"); ok {
		t.Errorf("Param(missing) reported ok")
	}
	r := rs.Rules()[0]
	if r.Specificity != 3 || strings.Join(r.Reads, ",") != "signals" || r.Line != 16 {
		t.Errorf("rule a: specificity %d reads %v line %d; want 3 [signals] 16", r.Specificity, r.Reads, r.Line)
	}
	if !strings.HasPrefix(rs.Hash(), "sha256:") || len(rs.Hash()) != len("sha256:")+64 {
		t.Errorf("hash = %q", rs.Hash())
	}
	again, err := Load("other-name.yaml", []byte(okRules))
	if err != nil {
		t.Fatal(err)
	}
	if again.Hash() != rs.Hash() {
		t.Errorf("the same bytes hash differently: %s vs %s", again.Hash(), rs.Hash())
	}
	changed, err := Load("tiny.yaml", []byte(strings.Replace(okRules, "0.8", "0.9", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if changed.Hash() == rs.Hash() {
		t.Errorf("a changed param did not change the hash")
	}
}

func TestLoadErrorSnippet(t *testing.T) {
	lines := SourceLines([]byte("a: 1\r\n\tb: x\nnäh\n"))
	for _, tc := range []struct {
		line, col int
		want      string
	}{
		{2, 3, "    2 |  b: x\n      |   ^"},
		{1, 1, "    1 | a: 1\n      | ^"},
		{1, 0, "    1 | a: 1\n      | ^"},     // before the line: at its start
		{1, 9, "    1 | a: 1\n      |     ^"}, // past the line's end: one past it
		{3, 4, "    3 | näh\n      |    ^"},   // columns count characters, not bytes
		{4, 1, "    4 | \n      | ^"},         // the empty line after the last LF
		{5, 1, ""},                            // past the end of the file
		{0, 1, ""},
	} {
		if got := Snippet(lines, tc.line, tc.col); got != tc.want {
			t.Errorf("Snippet(%d, %d) =\n%s\nwant\n%s", tc.line, tc.col, got, tc.want)
		}
	}
	e := &LoadError{File: "f.yaml", Line: 2, Col: 3, Rule: "r", Msg: "bad"}
	if got := e.Error(); got != `f.yaml:2:3: rule "r": bad` {
		t.Errorf("Error() = %q", got)
	}
	if !bytes.Contains([]byte(LoadErrors{e, e}.Error()), []byte("bad\nf.yaml")) {
		t.Errorf("LoadErrors.Error() does not put one error per line")
	}
}

// TestYAMLSyntaxErrorLine checks that a YAML syntax error points at the line of the
// mistake, not at the start of the construct around it.
func TestYAMLSyntaxErrorLine(t *testing.T) {
	cases := []struct {
		name string
		src  string
		line int
	}{
		{"bad indent", "a: 1\nrules:\n  - name: a\n    when: true\n   then: x\n", 5},
		{"unclosed flow list", "a: 1\nb: [1, 2\nc: 3\n", 2},
		{"unclosed quote", "a: 1\nb: \"abc\nc: 3\n", 2},
		{"tab indent", "a: 1\nb:\n\tc: 3\n", 3},
		{"two colons", "a: 1\nb: c: d\n", 2},
		{"indented key", "a: 1\n  b: 2\n", 2},
		{"list item in a mapping", "a: 1\nb: 2\n- c\n", 3},
		{"unknown anchor", "a: 1\nb: *nope\n", 2},
		{"block scalar dedent", "a: |\n  x\n b: 1\n", 3},
		{"after a multi-line quoted scalar", "a: \"x &&\n  y\"\nb: 1\nc: d: e\n", 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Load("f.yaml", []byte(c.src))
			var les LoadErrors
			if !errors.As(err, &les) || len(les) != 1 {
				t.Fatalf("want one load error, got %v", err)
			}
			if les[0].Line != c.line || !strings.HasPrefix(les[0].Msg, "YAML syntax: ") {
				t.Errorf("error at line %d, want %d: %v", les[0].Line, c.line, les[0])
			}
		})
	}
}

// TestLoadErrorsCRLF loads every error case again with CRLF line ends: the positions,
// messages and snippets must be those of the LF file.
func TestLoadErrorsCRLF(t *testing.T) {
	paths, _ := filepath.Glob("testdata/load/*.yaml")
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_, lfErr := Load(path, src)
		_, crlfErr := Load(path, bytes.ReplaceAll(src, []byte("\n"), []byte("\r\n")))
		if lfErr == nil || crlfErr == nil {
			t.Errorf("%s: LF error %v, CRLF error %v", path, lfErr, crlfErr)
			continue
		}
		if lfErr.Error() != crlfErr.Error() {
			t.Errorf("%s with CRLF line ends:\n%v\nwant\n%v", path, crlfErr, lfErr)
		}
	}
}
