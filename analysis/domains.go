package analysis

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/agentspine/spine/internal/yamlnode"
	"github.com/agentspine/spine/spine/ruleset"
)

// Domains declares the values a rule set's signals can take, one entry per fact kind
// (its presence) or per field. It is the content of a domains file, a YAML mapping such
// as:
//
//	signals: present                                  # the kind is always asserted
//	signals.round: {min: 0, max: 1000, integer: true} # a range; either side may be left open
//	signals.D: [0, 1]                                 # a closed range [min, max]
//	signals.all_matched: bool                         # both truth values
//	signals.mode: [fast, slow]                        # a set of strings
//	signals.tier: {values: [1, 2, 3]}                 # a set of numbers
//
// A kind without an entry may be absent or present; a field without one ranges over its
// type.
type Domains struct {
	File    string
	Entries []Domain // in file order

	src []byte // for error snippets
}

// Domain is one entry of a domains file.
type Domain struct {
	Key       string // "signals" or "signals.D"
	Kind      string
	Field     string // "" for a presence entry
	Line, Col int

	Form    DomainForm
	Present bool      // FormPresence: true for present, false for optional
	Min     float64   // FormRange: -Inf when open
	Max     float64   // FormRange: +Inf when open
	Integer bool      // FormRange: only integers occur
	Strings []string  // FormStrings
	Numbers []float64 // FormNumbers
}

// DomainForm says which of a Domain's fields hold its values.
type DomainForm int

// Forms of a domain entry.
const (
	FormPresence DomainForm = iota + 1
	FormRange
	FormBool
	FormStrings
	FormNumbers
)

// LoadDomainsFile reads and parses a domains file.
func LoadDomainsFile(path string) (*Domains, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseDomains(path, src)
}

var domainKeyRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$`)

// ParseDomains parses a domains file. It checks the file's own shape; whether the kinds
// and fields exist is checked against a rule set when the analysis binds them. On failure
// the error is a ruleset.LoadErrors listing every problem.
func ParseDomains(name string, src []byte) (d *Domains, err error) {
	l := newErrList(name, src)
	defer func() {
		if r := recover(); r != nil { // a bad file must never take the process down
			d, err = nil, ruleset.LoadErrors{{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("internal error while reading domains: %v", r)}}
		}
	}()
	d = &Domains{File: name, src: src}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		l.add(yamlErrLine(err), 1, "YAML syntax: %s", yamlErrMsg(err))
		return nil, l.err()
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return d, nil
	}
	root := yamlnode.Resolve(doc.Content[0])
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return d, nil
	}
	if root.Kind != yaml.MappingNode {
		l.add(root.Line, root.Column, "expected a mapping of signal: domain, got %s", yamlnode.Describe(root))
		return nil, l.err()
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], yamlnode.Resolve(root.Content[i+1])
		key := k.Value
		if k.Kind != yaml.ScalarNode || !domainKeyRe.MatchString(key) {
			l.add(k.Line, k.Column, "key %s: expected kind or kind.field (identifiers)", yamlnode.Describe(k))
			continue
		}
		if first, dup := seen[key]; dup {
			l.add(k.Line, k.Column, "%s: given twice (first on line %d)", key, first)
			continue
		}
		seen[key] = k.Line
		kind, field, _ := strings.Cut(key, ".")
		if kind == "params" {
			l.add(k.Line, k.Column, "%s: params are fixed values, not signals", key)
			continue
		}
		e := Domain{Key: key, Kind: kind, Field: field, Line: k.Line, Col: k.Column}
		ok := false
		if field == "" {
			ok = parsePresence(l, &e, v)
		} else {
			ok = parseFieldDomain(l, &e, v)
		}
		if ok {
			d.Entries = append(d.Entries, e)
		}
	}
	if err := l.err(); err != nil {
		return nil, err
	}
	return d, nil
}

func parsePresence(l *errList, e *Domain, v *yaml.Node) bool {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!str" {
		switch v.Value {
		case "present":
			e.Form, e.Present = FormPresence, true
			return true
		case "optional":
			e.Form = FormPresence
			return true
		}
	}
	l.add(v.Line, v.Column, "%s: expected present or optional, got %s", e.Key, yamlnode.Describe(v))
	return false
}

const fieldDomainForms = "[min, max], {min, max, integer}, {values: [...]}, a list of strings or bool"

func parseFieldDomain(l *errList, e *Domain, v *yaml.Node) bool {
	switch v.Kind {
	case yaml.ScalarNode:
		if v.Tag == "!!str" && v.Value == "bool" {
			e.Form = FormBool
			return true
		}
	case yaml.SequenceNode:
		return parseList(l, e, v, false)
	case yaml.MappingNode:
		return parseRangeMap(l, e, v)
	}
	l.add(v.Line, v.Column, "%s: expected %s, got %s", e.Key, fieldDomainForms, yamlnode.Describe(v))
	return false
}

// parseList reads [min, max] or a list of strings; inValues reads the list of a values key,
// where numbers form a set.
func parseList(l *errList, e *Domain, v *yaml.Node, inValues bool) bool {
	if len(v.Content) == 0 {
		l.add(v.Line, v.Column, "%s: the list is empty", e.Key)
		return false
	}
	var nums []float64
	var strs []string
	for _, it := range v.Content {
		it = yamlnode.Resolve(it)
		if it.Kind != yaml.ScalarNode || it.Tag == "!!null" || it.Tag == "!!bool" {
			l.add(it.Line, it.Column, "%s: expected numbers or strings in the list, got %s", e.Key, yamlnode.Describe(it))
			return false
		}
		if isNumberTag(it.Tag) {
			x, ok := finiteNumber(l, e, it)
			if !ok {
				return false
			}
			nums = append(nums, x)
			continue
		}
		strs = append(strs, it.Value)
	}
	if len(nums) > 0 && len(strs) > 0 {
		l.add(v.Line, v.Column, "%s: the list mixes numbers and strings", e.Key)
		return false
	}
	if len(strs) > 0 {
		if !noDuplicates(l, e, v, strs) {
			return false
		}
		e.Form, e.Strings = FormStrings, strs
		return true
	}
	if inValues {
		for i, x := range nums {
			for _, y := range nums[:i] {
				if x == y {
					l.add(v.Content[i].Line, v.Content[i].Column, "%s: value %s is listed twice", e.Key, fmtNum(x))
					return false
				}
			}
		}
		e.Form, e.Numbers = FormNumbers, nums
		return true
	}
	if len(nums) != 2 {
		l.add(v.Line, v.Column, "%s: a list of numbers is a range [min, max] and takes two numbers, got %d (for a set of numbers write {values: [...]})", e.Key, len(nums))
		return false
	}
	return setRange(l, e, v, nums[0], nums[1])
}

func noDuplicates(l *errList, e *Domain, v *yaml.Node, strs []string) bool {
	seen := map[string]bool{}
	for i, s := range strs {
		if seen[s] {
			it := v.Content[i]
			l.add(it.Line, it.Column, "%s: value %q is listed twice", e.Key, s)
			return false
		}
		seen[s] = true
	}
	return true
}

func parseRangeMap(l *errList, e *Domain, v *yaml.Node) bool {
	lo, hi := math.Inf(-1), math.Inf(1)
	var values *yaml.Node
	hasBound, ok := false, true
	seen := map[string]bool{}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, val := v.Content[i], yamlnode.Resolve(v.Content[i+1])
		if seen[k.Value] {
			l.add(k.Line, k.Column, "%s: key %q is given twice", e.Key, k.Value)
			ok = false
			continue
		}
		seen[k.Value] = true
		switch k.Value {
		case "min", "max":
			if val.Kind != yaml.ScalarNode || !isNumberTag(val.Tag) {
				l.add(val.Line, val.Column, "%s: %s: expected a number, got %s", e.Key, k.Value, yamlnode.Describe(val))
				ok = false
				continue
			}
			x, good := finiteNumber(l, e, val)
			if !good {
				ok = false
				continue
			}
			hasBound = true
			if k.Value == "min" {
				lo = x
			} else {
				hi = x
			}
		case "integer":
			if val.Kind != yaml.ScalarNode || val.Tag != "!!bool" {
				l.add(val.Line, val.Column, "%s: integer: expected true or false, got %s", e.Key, yamlnode.Describe(val))
				ok = false
				continue
			}
			e.Integer = val.Value == "true" || val.Value == "True" || val.Value == "TRUE"
		case "values":
			if val.Kind != yaml.SequenceNode {
				l.add(val.Line, val.Column, "%s: values: expected a list, got %s", e.Key, yamlnode.Describe(val))
				ok = false
				continue
			}
			values = val
		default:
			l.add(k.Line, k.Column, "%s: unknown key %q (expected min, max, integer or values)", e.Key, k.Value)
			ok = false
		}
	}
	if !ok {
		return false
	}
	switch {
	case values != nil && (hasBound || e.Integer):
		l.add(v.Line, v.Column, "%s: values cannot be combined with min, max or integer", e.Key)
		return false
	case values != nil:
		return parseList(l, e, values, true)
	case !hasBound && !e.Integer:
		l.add(v.Line, v.Column, "%s: give min, max, integer or values", e.Key)
		return false
	}
	return setRange(l, e, v, lo, hi)
}

func setRange(l *errList, e *Domain, v *yaml.Node, lo, hi float64) bool {
	if lo > hi {
		l.add(v.Line, v.Column, "%s: min %s is greater than max %s", e.Key, fmtNum(lo), fmtNum(hi))
		return false
	}
	if e.Integer && math.Ceil(lo) > math.Floor(hi) {
		l.add(v.Line, v.Column, "%s: the range [%s, %s] holds no integer", e.Key, fmtNum(lo), fmtNum(hi))
		return false
	}
	e.Form, e.Min, e.Max = FormRange, lo, hi
	return true
}

func finiteNumber(l *errList, e *Domain, n *yaml.Node) (float64, bool) {
	x, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64)
	if err != nil {
		if derr := n.Decode(&x); derr != nil {
			l.add(n.Line, n.Column, "%s: %q is not a number", e.Key, n.Value)
			return 0, false
		}
	}
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > maxMagnitude {
		l.add(n.Line, n.Column, "%s: %s is not a finite number within ±1e15", e.Key, n.Value)
		return 0, false
	}
	return x, true
}

// maxMagnitude bounds domain numbers so that witnesses stay exact in int and float fields.
const maxMagnitude = 1e15

func isNumberTag(tag string) bool { return tag == "!!int" || tag == "!!float" }

var yamlLineRe = regexp.MustCompile(`^yaml: (?:line (\d+): )?(.*)$`)

func yamlErrLine(err error) int {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil && m[1] != "" {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	return 1
}

func yamlErrMsg(err error) string {
	if m := yamlLineRe.FindStringSubmatch(err.Error()); m != nil {
		return m[2]
	}
	return err.Error()
}

// fmtNum prints a number the shortest way that reads back to the same float.
func fmtNum(x float64) string {
	if math.IsInf(x, 1) {
		return "+inf"
	}
	if math.IsInf(x, -1) {
		return "-inf"
	}
	if math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
