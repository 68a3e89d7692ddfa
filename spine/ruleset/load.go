package ruleset

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/internal/yamlnode"
)

// Load compiles a rule file. name is used in error messages and as the rule set's path.
// On failure the error is a LoadErrors listing every problem found.
func Load(name string, src []byte) (rs *RuleSet, err error) {
	l := &loader{file: name, lines: SourceLines(src)}
	defer func() {
		// A bad file must never take the process down: anything unexpected becomes a
		// file-level error.
		if r := recover(); r != nil {
			rs, err = nil, LoadErrors{{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while loading: %v", r)}}
		}
	}()
	rs = l.load(src)
	if len(l.errs) > 0 {
		slices.SortStableFunc(l.errs, func(a, b *LoadError) int {
			return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
		})
		return nil, l.errs
	}
	rs.hash = HashOf(src)
	rs.source = string(src)
	rs.prepare()
	rs.path = name
	return rs, nil
}

// HashOf is a content hash as traces record it: "sha256:" and the hex digest. A rule
// set's Hash is the HashOf its file's bytes.
func HashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

type loader struct {
	file     string
	lines    []string
	errs     LoadErrors
	rule     string          // rule being loaded, for error context
	objNodes [][2]*yaml.Node // each objective's score and satisfied, compiled once the environment exists
}

func (l *loader) errAt(line, col int, format string, args ...any) {
	l.errs = append(l.errs, &LoadError{
		File: l.file, Line: line, Col: col, Rule: l.rule,
		Msg: fmt.Sprintf(format, args...), Snippet: Snippet(l.lines, line, col),
	})
}

func (l *loader) errNode(n *yaml.Node, format string, args ...any) {
	l.errAt(n.Line, n.Column, format, args...)
}

// is reports whether n is of kind, and otherwise reports the expectation format
// describes, and what n is instead, at n. A nil n is a key the file does not give: not
// of kind, and nothing to report (fields has reported it if it is required).
func (l *loader) is(n *yaml.Node, kind yaml.Kind, format string, args ...any) bool {
	if n == nil {
		return false
	}
	if n.Kind != kind {
		l.errNode(n, "%s, got %s", fmt.Sprintf(format, args...), yamlnode.Describe(n))
	}
	return n.Kind == kind
}

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

func (l *loader) load(src []byte) *RuleSet {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		line, msg := 1, err.Error()
		if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
			if m[1] != "" {
				line, _ = strconv.Atoi(m[1])
			}
			msg = m[2]
		}
		line = l.syntaxErrorLine(line, msg)
		l.errAt(line, firstCol(l.lines, line), "YAML syntax: %s", msg)
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		l.errAt(1, 1, "empty rule file: expected a mapping with params, facts, objectives and rules")
		return nil
	}
	root := doc.Content[0]
	if !l.is(root, yaml.MappingNode, "expected a mapping with params, facts, objectives and rules") {
		return nil
	}
	rs := &RuleSet{}
	keys := l.fields(root, "rule file", []string{"version", "name", "description", "params", "facts", "objectives", "domains", "rules"}, []string{"rules"})
	if n := keys["version"]; n != nil {
		if v, ok := l.intScalar(n, "version"); ok && v != 1 {
			l.errNode(n, "unsupported version %d: this build reads version 1", v)
		}
	}
	rs.name, _ = l.stringScalar(keys["name"], "name")
	rs.description, _ = l.stringScalar(keys["description"], "description")
	l.loadParams(rs, keys["params"])
	l.loadFacts(rs, keys["facts"])
	l.loadObjectives(rs, keys["objectives"])
	rs.finish()
	l.compileObjectives(rs)
	if n := keys["domains"]; n != nil {
		if n.Kind != yaml.MappingNode {
			l.errNode(n, "domains: expected a mapping of signal: domain, got %s", yamlnode.Describe(n))
		} else {
			rs.domains = l.nodeSource(n)
		}
	}
	l.loadRules(rs, keys["rules"])
	return rs
}

// fields checks a mapping's keys against the allowed ones and the required ones and
// returns the value node of each key present.
func (l *loader) fields(n *yaml.Node, what string, allowed, required []string) map[string]*yaml.Node {
	out := map[string]*yaml.Node{}
	line := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlnode.Resolve(n.Content[i+1])
		if !slices.Contains(allowed, k.Value) {
			l.errNode(k, "unknown key %q in %s (expected one of: %s)", k.Value, what, strings.Join(allowed, ", "))
			continue
		}
		if first, dup := line[k.Value]; dup {
			l.errNode(k, "duplicate key %q in %s (first given on line %d)", k.Value, what, first)
			continue
		}
		line[k.Value] = k.Line
		out[k.Value] = v
	}
	for _, r := range required {
		if out[r] == nil {
			l.errNode(n, "%s is missing required key %q", what, r)
		}
	}
	return out
}

// stringScalar reads a string; a nil n (a key not given) is "", with nothing to report.
func (l *loader) stringScalar(n *yaml.Node, what string) (string, bool) {
	if n == nil {
		return "", false
	}
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		l.errNode(n, "%s: expected a string, got %s", what, yamlnode.Describe(n))
		return "", false
	}
	return n.Value, true
}

func (l *loader) intScalar(n *yaml.Node, what string) (int, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" {
		l.errNode(n, "%s: expected an integer, got %s", what, yamlnode.Describe(n))
		return 0, false
	}
	v, err := strconv.Atoi(n.Value)
	if err != nil {
		l.errNode(n, "%s: expected an integer, got %q", what, n.Value)
		return 0, false
	}
	return v, true
}

func (l *loader) boolScalar(n *yaml.Node, what string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		l.errNode(n, "%s: expected true or false, got %s", what, yamlnode.Describe(n))
		return false, false
	}
	var v bool
	if err := n.Decode(&v); err != nil {
		l.errNode(n, "%s: expected true or false, got %q", what, n.Value)
		return false, false
	}
	return v, true
}

var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// declare accepts the name a rule file declares at n: an identifier (else "<ident> … is
// not an identifier") not declared before in seen (else "duplicate <dup>").
func (l *loader) declare(seen map[string]int, n *yaml.Node, name, ident, dup string) bool {
	if !identRe.MatchString(name) {
		l.errNode(n, "%s %q is not an identifier (letters, digits, _)", ident, name)
		return false
	}
	if first, ok := seen[name]; ok {
		l.errNode(n, "duplicate %s (first declared on line %d)", dup, first)
		return false
	}
	seen[name] = n.Line
	return true
}

func (l *loader) loadParams(rs *RuleSet, n *yaml.Node) {
	if !l.is(n, yaml.MappingNode, "params: expected a mapping of name: value") {
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlnode.Resolve(n.Content[i+1])
		if !l.declare(seen, k, k.Value, "param name", "param "+strconv.Quote(k.Value)) {
			continue
		}
		p := Param{Name: k.Value, Line: k.Line, Col: k.Column}
		switch {
		case v.Kind == yaml.ScalarNode && (v.Tag == "!!int" || v.Tag == "!!float"):
			f, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
			if err != nil {
				var x float64
				if derr := v.Decode(&x); derr != nil {
					l.errNode(v, "param %q: %q is not a number", k.Value, v.Value)
					continue
				}
				f = x
			}
			p.Type, p.Value = TypeFloat, f
		case v.Kind == yaml.ScalarNode && v.Tag == "!!bool":
			x, _ := l.boolScalar(v, "param "+k.Value)
			p.Type, p.Value = TypeBool, x
		case v.Kind == yaml.ScalarNode && v.Tag == "!!str":
			p.Type, p.Value = TypeString, v.Value
		default:
			l.errNode(v, "param %q: expected a number, bool or string, got %s", k.Value, yamlnode.Describe(v))
			continue
		}
		rs.params = append(rs.params, p)
	}
}

func (l *loader) loadFacts(rs *RuleSet, n *yaml.Node) {
	if !l.is(n, yaml.MappingNode, "facts: expected a mapping of kind: {fields: ...}") {
		return
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], yamlnode.Resolve(n.Content[i+1])
		if !l.declare(seen, k, k.Value, "fact kind", "fact kind "+strconv.Quote(k.Value)) {
			continue
		}
		if reservedNames[k.Value] {
			l.errNode(k, "fact kind %q is built in and cannot be declared", k.Value)
			continue
		}
		if !l.is(v, yaml.MappingNode, "fact kind %q: expected a mapping with fields", k.Value) {
			continue
		}
		fk := &FactKind{Name: k.Value}
		keys := l.fields(v, "fact kind "+strconv.Quote(k.Value), []string{"description", "many", "fields"}, []string{"fields"})
		fk.Description, _ = l.stringScalar(keys["description"], "description")
		if m := keys["many"]; m != nil {
			fk.Many, _ = l.boolScalar(m, "many")
		}
		if f := keys["fields"]; f != nil {
			if !l.is(f, yaml.MappingNode, "fields of %q: expected a mapping of name: type", k.Value) {
				continue
			}
			seenField := map[string]int{}
			for j := 0; j+1 < len(f.Content); j += 2 {
				fn, ft := f.Content[j], yamlnode.Resolve(f.Content[j+1])
				if !l.declare(seenField, fn, fn.Value, "field name", fmt.Sprintf("field %q of %q", fn.Value, k.Value)) {
					continue
				}
				t := FieldType(ft.Value)
				if _, ok := fieldTypes[t]; !ok || ft.Kind != yaml.ScalarNode {
					l.errNode(ft, "field %q of %q: unknown type %s (expected float, int, bool, string or strings)", fn.Value, k.Value, yamlnode.Describe(ft))
					continue
				}
				fk.Fields = append(fk.Fields, Field{Name: fn.Value, Type: t})
			}
		}
		rs.kinds = append(rs.kinds, fk)
	}
}

func (l *loader) loadObjectives(rs *RuleSet, n *yaml.Node) {
	if !l.is(n, yaml.SequenceNode, "objectives: expected a list of {name, description, terminal, score, satisfied}") {
		return
	}
	seen := map[string]int{}
	for _, item := range n.Content {
		item = yamlnode.Resolve(item)
		if !l.is(item, yaml.MappingNode, "objective: expected a mapping with name, description and terminal") {
			continue
		}
		keys := l.fields(item, "objective", []string{"name", "description", "terminal", "score", "satisfied"}, []string{"name"})
		v := keys["name"]
		name, ok := l.stringScalar(v, "objective name")
		if !ok || !l.declare(seen, v, name, "objective name", "objective "+strconv.Quote(name)) {
			continue
		}
		o := Objective{Name: name}
		o.Description, _ = l.stringScalar(keys["description"], "description")
		if v := keys["terminal"]; v != nil {
			t, _ := l.stringScalar(v, "terminal")
			if t != TerminalSuccess && t != TerminalFailure {
				l.errNode(v, "objective %q: terminal must be %q or %q, got %s", o.Name, TerminalSuccess, TerminalFailure, yamlnode.Describe(v))
			}
			o.Terminal = t
		}
		o.Score = l.objectiveExpr(keys["score"], o.Name, "score")
		o.Satisfied = l.objectiveExpr(keys["satisfied"], o.Name, "satisfied")
		rs.objectives = append(rs.objectives, o)
		l.objNodes = append(l.objNodes, [2]*yaml.Node{keys["score"], keys["satisfied"]})
	}
}

// syntaxErrorLine finds the line a YAML syntax error is on. yaml.v3 reports the line
// where the enclosing construct starts (for parser errors, counted from 0), which can be
// far above the mistake. The mistake is on the first line whose inclusion makes the file
// fail with the same message. The search is a bisection between the reported line, which
// is never below the mistake, and the last line, which fails by definition.
func (l *loader) syntaxErrorLine(reported int, msg string) int {
	lo, hi := max(reported, 1), len(l.lines)
	if lo > hi {
		return hi
	}
	for lo < hi {
		mid := lo + (hi-lo)/2
		var doc yaml.Node
		err := yaml.Unmarshal([]byte(strings.Join(l.lines[:mid], "\n")), &doc)
		if m := yamlLineRe.FindStringSubmatch(fmt.Sprint(err)); err != nil && m != nil && m[2] == msg {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// SourceLines splits src into lines for snippets (Snippet) and positions. A CR before
// the LF is dropped: yaml.v3 reads CRLF files as LF ones, and a CR in a snippet would garble it.
func SourceLines(src []byte) []string {
	lines := strings.Split(string(src), "\n")
	for i, ln := range lines {
		lines[i] = strings.TrimSuffix(ln, "\r")
	}
	return lines
}

// firstCol is the column of the first non-blank character of a line, for errors whose
// source gives only a line.
func firstCol(lines []string, line int) int {
	if line < 1 || line > len(lines) {
		return 1
	}
	return leadingSpaces(lines[line-1]) + 1
}

// nodeSource returns the text of n as a YAML document whose lines and columns are those
// of the rule file: lines before n are blank, and so is what precedes n on its own line.
func (l *loader) nodeSource(n *yaml.Node) []byte {
	last := lastLine(n)
	var b strings.Builder
	for i := 1; i <= last && i <= len(l.lines); i++ {
		switch {
		case i < n.Line:
		case i == n.Line:
			line := []rune(l.lines[i-1])
			if c := n.Column - 1; c <= len(line) {
				b.WriteString(strings.Repeat(" ", c))
				b.WriteString(string(line[c:]))
			}
		default:
			b.WriteString(l.lines[i-1])
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

func lastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		last = max(last, lastLine(c))
	}
	return last
}
