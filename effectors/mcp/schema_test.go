package mcp

import (
	"errors"
	"strings"
	"testing"
)

func TestValidateNamesTheField(t *testing.T) {
	s, err := compileSchema(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"path":  map[string]any{"type": "string"},
			"depth": map[string]any{"type": "integer", "minimum": 1},
			"opts": map[string]any{"type": "object", "properties": map[string]any{
				"mode": map[string]any{"enum": []any{"a", "b"}}}},
		},
		"required":             []any{"path"},
		"additionalProperties": false,
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ args, field, problem string }{
		{`{}`, "path", "missing"},
		{`{"path": 3}`, "path", "want \"string\""},
		{`{"path": "a", "depth": 0}`, "depth", "minimum"},
		{`{"path": "a", "extra": 1}`, "extra", "additional"},
		{`{"path": "a", "opts": {"mode": "c"}}`, "opts.mode", "enum"},
		{`[1]`, "", "want a JSON object, got an array"},
		{`{"path": "a"} x`, "", "extra data"},
		{`{"path": `, "", "not valid JSON"},
	} {
		_, err := s.validate("t", []byte(c.args))
		var ae *ArgsError
		if !errors.As(err, &ae) {
			t.Errorf("%s: got %v, want an ArgsError", c.args, err)
			continue
		}
		if ae.Field != c.field || !strings.Contains(ae.Problem, c.problem) {
			t.Errorf("%s: field %q problem %q, want %q containing %q", c.args, ae.Field, ae.Problem, c.field, c.problem)
		}
	}
	if _, err := s.validate("t", []byte(`{"path": "a", "depth": 2}`)); err != nil {
		t.Errorf("valid arguments refused: %v", err)
	}
}

func TestCompileSchemaRefuses(t *testing.T) {
	for _, v := range []any{
		map[string]any{"type": "string"},
		map[string]any{"type": "object", "properties": map[string]any{"a": map[string]any{"$ref": "https://example.com/s.json"}}},
		map[string]any{"type": "object", "description": strings.Repeat("x", MaxSchemaBytes)},
	} {
		if _, err := compileSchema(v); err == nil {
			t.Errorf("compiled %v", v)
		}
	}
}

func FuzzSchemaField(f *testing.F) {
	f.Add(`validating root: validating /properties/a: type: 3 has type "integer", want "string"`)
	f.Add(`validating root: required: missing properties: ["path"]`)
	f.Fuzz(func(t *testing.T, msg string) {
		schemaField(msg)
	})
}
