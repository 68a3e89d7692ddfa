package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// schema is a tool's input schema, compiled for validation, and its JSON as the model
// is given it.
type schema struct {
	raw      json.RawMessage
	resolved *jsonschema.Resolved
}

// compileSchema takes a server's inputSchema. A schema that is too large, not an object
// schema, or that jsonschema-go cannot resolve (a remote $ref, an unknown draft) makes
// the tool refused: its calls could not be checked before they are sent.
func compileSchema(v any) (schema, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return schema{}, fmt.Errorf("its input schema is not JSON: %v", err)
	}
	if len(raw) > MaxSchemaBytes {
		return schema{}, fmt.Errorf("its input schema is %d bytes, over %d", len(raw), MaxSchemaBytes)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return schema{}, fmt.Errorf("its input schema is not a JSON Schema: %v", err)
	}
	if s.Type != "object" {
		return schema{}, fmt.Errorf("its input schema's type is %q, want \"object\"", s.Type)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return schema{}, fmt.Errorf("its input schema cannot be used: %v", err)
	}
	return schema{raw: raw, resolved: rs}, nil
}

// decodeArgs reads a call's arguments: one JSON object ({} when empty).
func decodeArgs(tool string, raw []byte) (map[string]any, error) {
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, &ArgsError{Tool: tool, Problem: "not valid JSON: " + err.Error()}
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &ArgsError{Tool: tool, Problem: "extra data after the JSON object"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &ArgsError{Tool: tool, Problem: fmt.Sprintf("want a JSON object, got %s", jsonKind(v))}
	}
	return m, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return "null"
}

// validate checks args against the schema; the error names the field.
func (s schema) validate(tool string, raw []byte) (map[string]any, error) {
	args, err := decodeArgs(tool, raw)
	if err != nil {
		return nil, err
	}
	// jsonschema-go validates the types encoding/json produces: numbers as float64.
	var plain map[string]any
	if err := json.Unmarshal(raw, &plain); err != nil || plain == nil {
		plain = map[string]any{}
	}
	if err := s.resolved.Validate(plain); err != nil {
		field, problem := schemaField(err.Error())
		return nil, &ArgsError{Tool: tool, Field: field, Problem: problem}
	}
	return args, nil
}

var (
	propertyStep = regexp.MustCompile(`/properties/([^/\s:]+)`)
	namedList    = regexp.MustCompile(`(?:missing properties|unexpected additional properties):? \["([^"]+)"`)
)

// schemaField reads jsonschema-go's error ("validating root: validating
// /properties/a: type: 3 has type "integer", want "string"") as the field it is about,
// dotted from the root, and the innermost problem.
func schemaField(msg string) (field, problem string) {
	problem = msg
	path := ""
	for {
		i := strings.Index(problem, "validating ")
		if i < 0 {
			break
		}
		rest := problem[i+len("validating "):]
		end := strings.Index(rest, ": ")
		if end < 0 {
			break
		}
		path, problem = rest[:end], rest[end+2:]
	}
	var parts []string
	for _, m := range propertyStep.FindAllStringSubmatch(path, -1) {
		parts = append(parts, m[1])
	}
	if m := namedList.FindStringSubmatch(problem); m != nil {
		parts = append(parts, m[1])
	}
	return strings.Join(parts, "."), problem
}
