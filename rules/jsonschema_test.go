package rules_test

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"
)

// schemaValidator checks a YAML document against the subset of JSON Schema (draft 2020-12)
// that rules.schema.json uses: type, enum, const, required, properties,
// additionalProperties, propertyNames, pattern, minLength, items, minItems,
// minProperties, oneOf, not and $ref to #/$defs. A keyword outside that subset is an
// error, so the schema cannot grow a rule this validator silently skips.
type schemaValidator struct {
	root map[string]any
}

// annotations carry no constraint.
var annotations = map[string]bool{"$schema": true, "$id": true, "$defs": true, "title": true, "description": true, "$comment": true}

func newSchemaValidator(schemaJSON []byte) (*schemaValidator, error) {
	var root map[string]any
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		return nil, err
	}
	return &schemaValidator{root: root}, nil
}

// validateYAML returns every violation as "line:col: path: message", sorted by position.
func (v *schemaValidator) validateYAML(src []byte) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return []string{"1:1: (root): the document is empty"}, nil
	}
	var errs []violation
	v.validate(v.root, doc.Content[0], "", &errs)
	sort.SliceStable(errs, func(i, j int) bool {
		if errs[i].line != errs[j].line {
			return errs[i].line < errs[j].line
		}
		return errs[i].col < errs[j].col
	})
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.String()
	}
	return out, nil
}

type violation struct {
	line, col int
	path, msg string
}

func (e violation) String() string {
	p := e.path
	if p == "" {
		p = "(root)"
	}
	return fmt.Sprintf("%d:%d: %s: %s", e.line, e.col, p, e.msg)
}

func resolveNode(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 16; depth++ {
		n = n.Alias
	}
	return n
}

func (v *schemaValidator) validate(s any, n *yaml.Node, path string, errs *[]violation) {
	n = resolveNode(n)
	fail := func(format string, args ...any) {
		*errs = append(*errs, violation{n.Line, n.Column, path, fmt.Sprintf(format, args...)})
	}
	switch s := s.(type) {
	case bool:
		if !s {
			fail("no value is allowed here")
		}
		return
	case map[string]any:
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		sort.Strings(keys) // a stable order of checks, hence of messages
		for _, k := range keys {
			v.keyword(s, k, n, path, errs, fail)
		}
	default:
		fail("the schema here is %T, not an object or a bool", s)
	}
}

func (v *schemaValidator) keyword(s map[string]any, k string, n *yaml.Node, path string, errs *[]violation, fail func(string, ...any)) {
	val := s[k]
	switch k {
	case "$ref":
		ref, _ := val.(string)
		name, ok := strings.CutPrefix(ref, "#/$defs/")
		defs, _ := v.root["$defs"].(map[string]any)
		target, found := defs[name]
		if !ok || !found {
			fail("unresolvable $ref %q", ref)
			return
		}
		v.validate(target, n, path, errs)
	case "type":
		var types []string
		switch t := val.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		for _, t := range types {
			if hasType(n, t) {
				return
			}
		}
		fail("expected %s, got %s", strings.Join(types, " or "), describeYAML(n))
	case "enum":
		got := nodeValue(n)
		for _, want := range val.([]any) {
			if reflect.DeepEqual(got, want) {
				return
			}
		}
		fail("value %s is not one of %s", jsonText(got), jsonText(val))
	case "const":
		if got := nodeValue(n); !reflect.DeepEqual(got, val) {
			fail("value %s is not %s", jsonText(got), jsonText(val))
		}
	case "required":
		if n.Kind != yaml.MappingNode {
			return
		}
		for _, r := range val.([]any) {
			if mapValue(n, r.(string)) == nil {
				fail("missing required property %q", r)
			}
		}
	case "properties":
		if n.Kind != yaml.MappingNode {
			return
		}
		props := val.(map[string]any)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if ps, ok := props[n.Content[i].Value]; ok {
				v.validate(ps, n.Content[i+1], join(path, n.Content[i].Value), errs)
			}
		}
	case "additionalProperties":
		if n.Kind != yaml.MappingNode {
			return
		}
		props, _ := s["properties"].(map[string]any)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := n.Content[i].Value
			if _, declared := props[key]; declared {
				continue
			}
			if b, ok := val.(bool); ok && !b {
				*errs = append(*errs, violation{n.Content[i].Line, n.Content[i].Column, path, fmt.Sprintf("additional property %q is not allowed", key)})
				continue
			}
			v.validate(val, n.Content[i+1], join(path, key), errs)
		}
	case "propertyNames":
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			key := *n.Content[i]
			key.Tag = "!!str" // property names are strings, whatever they look like
			v.validate(val, &key, join(path, key.Value)+" (name)", errs)
		}
	case "pattern":
		if !hasType(n, "string") {
			return
		}
		re, err := regexp.Compile(val.(string))
		if err != nil {
			fail("bad pattern %q: %v", val, err)
			return
		}
		if !re.MatchString(n.Value) {
			fail("%q does not match %s", n.Value, val)
		}
	case "minLength":
		if hasType(n, "string") && float64(utf8.RuneCountInString(n.Value)) < val.(float64) {
			fail("%q is shorter than %v characters", n.Value, val)
		}
	case "items":
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, it := range n.Content {
			v.validate(val, it, fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case "minItems":
		if n.Kind == yaml.SequenceNode && float64(len(n.Content)) < val.(float64) {
			fail("has %d items, fewer than %v", len(n.Content), val)
		}
	case "minProperties":
		if n.Kind == yaml.MappingNode && float64(len(n.Content)/2) < val.(float64) {
			fail("has %d properties, fewer than %v", len(n.Content)/2, val)
		}
	case "oneOf":
		matched := 0
		for _, sub := range val.([]any) {
			var sink []violation
			v.validate(sub, n, path, &sink)
			if len(sink) == 0 {
				matched++
			}
		}
		if matched != 1 {
			fail("matches %d of the oneOf alternatives, want exactly 1", matched)
		}
	case "not":
		var sink []violation
		v.validate(val, n, path, &sink)
		if len(sink) == 0 {
			fail("matches a schema it must not match (%s)", jsonText(val))
		}
	default:
		if !annotations[k] {
			fail("unsupported schema keyword %q", k)
		}
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// hasType reads YAML tags the way a YAML language server does (YAML 1.2 core schema).
func hasType(n *yaml.Node, t string) bool {
	switch t {
	case "object":
		return n.Kind == yaml.MappingNode
	case "array":
		return n.Kind == yaml.SequenceNode
	case "string":
		return n.Kind == yaml.ScalarNode && n.Tag == "!!str"
	case "boolean":
		return n.Kind == yaml.ScalarNode && n.Tag == "!!bool"
	case "null":
		return n.Kind == yaml.ScalarNode && n.Tag == "!!null"
	case "number":
		return n.Kind == yaml.ScalarNode && (n.Tag == "!!int" || n.Tag == "!!float")
	case "integer":
		if n.Kind != yaml.ScalarNode {
			return false
		}
		if n.Tag == "!!int" {
			return true
		}
		if n.Tag == "!!float" {
			var f float64
			return n.Decode(&f) == nil && f == math.Trunc(f) && !math.IsInf(f, 0)
		}
	}
	return false
}

// nodeValue decodes a node to the values encoding/json gives for the same JSON: numbers
// are float64, mappings map[string]any.
func nodeValue(n *yaml.Node) any {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	if json.Unmarshal(b, &out) != nil {
		return v
	}
	return out
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func describeYAML(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return strings.TrimPrefix(n.Tag, "!!") + " " + fmt.Sprintf("%q", n.Value)
}
