package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestSpecs(t *testing.T) {
	f := newFixture(t, Options{})
	specs := f.sb.Specs()
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		var schema struct {
			Type       string                     `json:"type"`
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		}
		if err := json.Unmarshal(s.Parameters, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: parameters are not a JSON-schema object: %v", s.Name, err)
		}
		for _, r := range schema.Required {
			if _, ok := schema.Properties[r]; !ok {
				t.Errorf("%s: required %q is not a property", s.Name, r)
			}
		}
		fields := strings.Split(knownFields[s.Name], ", ")
		if len(fields) != len(schema.Properties) {
			t.Errorf("%s: schema has %d properties, the dispatcher knows %v", s.Name, len(schema.Properties), fields)
		}
		if s.Description == "" {
			t.Errorf("%s has no description", s.Name)
		}
	}
	if strings.Join(names, ",") != "shell,read_file,write_file,list_files" {
		t.Errorf("specs = %v", names)
	}
}

func TestCall(t *testing.T) {
	cases := []struct {
		name     string
		tool     string
		args     string
		field    string // ArgsError field wanted; "-" for an ArgsError on the whole arguments
		problem  string // substring of the error; "" for success
		output   string // substring of the output on success
		evidence string // exact evidence entry, when given
	}{
		{name: "shell ok", tool: "shell", args: `{"command":"echo hi"}`, output: "hi\n", evidence: "shell:echo hi → hi"},
		{name: "shell with timeout", tool: "shell", args: `{"command":"echo hi","timeout_ms":5000}`, output: "hi"},
		{name: "shell unknown field", tool: "shell", args: `{"cmd":"ls"}`, field: "cmd", problem: "unknown field; the fields are command, timeout_ms"},
		{name: "shell missing command", tool: "shell", args: `{}`, field: "command", problem: "required"},
		{name: "shell null arguments", tool: "shell", args: `null`, field: "command", problem: "required"},
		{name: "shell blank command", tool: "shell", args: `{"command":"  "}`, field: "command", problem: "required"},
		{name: "shell command not a string", tool: "shell", args: `{"command":5}`, field: "command", problem: "want a string, got a JSON number"},
		{name: "shell timeout zero", tool: "shell", args: `{"command":"ls","timeout_ms":0}`, field: "timeout_ms", problem: "0 is outside 1..30000"},
		{name: "shell timeout too long", tool: "shell", args: `{"command":"ls","timeout_ms":60000}`, field: "timeout_ms", problem: "60000 is outside 1..30000"},
		{name: "shell timeout as text", tool: "shell", args: `{"command":"ls","timeout_ms":"5"}`, field: "timeout_ms", problem: "want an integer, got a JSON string"},
		{name: "shell timeout fractional", tool: "shell", args: `{"command":"ls","timeout_ms":1.5}`, field: "timeout_ms", problem: "want an integer"},
		{name: "arguments not an object", tool: "shell", args: `["ls"]`, field: "-", problem: "want a JSON object, got a JSON array"},
		{name: "arguments not JSON", tool: "shell", args: `{"command":`, field: "-", problem: "not valid JSON"},
		{name: "arguments with trailing data", tool: "shell", args: `{"command":"ls"} {}`, field: "-", problem: "extra data"},
		{name: "read ok", tool: "read_file", args: `{"path":"a.txt"}`, output: "alpha", evidence: "read_file:a.txt → alpha"},
		{name: "read missing path", tool: "read_file", args: `{"path":""}`, field: "path", problem: "required"},
		{name: "read path not a string", tool: "read_file", args: `{"path":["a"]}`, field: "path", problem: "want a string, got a JSON array"},
		{name: "write ok", tool: "write_file", args: `{"path":"d/e/f.txt","content":""}`, output: "wrote 0 bytes to d/e/f.txt"},
		{name: "write missing content", tool: "write_file", args: `{"path":"x.txt"}`, field: "content", problem: "required: a string (may be empty)"},
		{name: "write content not a string", tool: "write_file", args: `{"path":"x.txt","content":{}}`, field: "content", problem: "want a string, got a JSON object"},
		{name: "list ok", tool: "list_files", args: `{"path":"sub","pattern":"*.txt"}`, output: "sub/b.txt", evidence: "list_files:sub/*.txt → sub/b.txt"},
		{name: "list defaults", tool: "list_files", args: ``, output: "a.txt\n"},
		{name: "list recursive not a bool", tool: "list_files", args: `{"recursive":"yes"}`, field: "recursive", problem: "want a boolean"},
		{name: "list bad pattern", tool: "list_files", args: `{"pattern":"[a"}`, field: "pattern", problem: "not a valid glob"},
	}
	f := newFixture(t, Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res, err := f.sb.Call(context.Background(), tc.tool, []byte(tc.args))
			if !strings.HasPrefix(res.Evidence, tc.tool+":") || !strings.Contains(res.Evidence, " → ") {
				t.Errorf("evidence %q is not an entry for %s", res.Evidence, tc.tool)
			}
			if tc.evidence != "" && res.Evidence != tc.evidence {
				t.Errorf("evidence = %q, want %q", res.Evidence, tc.evidence)
			}
			if tc.problem == "" {
				if err != nil || !strings.Contains(res.Output, tc.output) {
					t.Fatalf("Call = %+v, %v; want output with %q", res, err, tc.output)
				}
				return
			}
			var ae *ArgsError
			if !errors.As(err, &ae) {
				t.Fatalf("Call = %v, want an *ArgsError", err)
			}
			wantField := tc.field
			if wantField == "-" {
				wantField = ""
			}
			if ae.Field != wantField || !strings.Contains(err.Error(), tc.problem) || !res.Refused {
				t.Errorf("Call error = %v (field %q), want field %q and %q", err, ae.Field, wantField, tc.problem)
			}
			if !strings.Contains(res.Output, tc.problem) {
				t.Errorf("the model is not told the problem: %q", res.Output)
			}
		})
	}
	res, err := f.sb.Call(context.Background(), "rm", []byte(`{}`))
	if !errors.Is(err, ErrUnknownTool) || res.Evidence != `rm: → refused: unknown tool "rm"; the tools are list_files, read_file, shell, write_file` {
		t.Errorf("unknown tool = %+v, %v", res, err)
	}
}

func TestNewValidates(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		dir  string
		opts Options
		want string
	}{
		{dir + "/missing", Options{}, "no such file"},
		{dir, Options{MaxOutput: -1}, "must not be negative"},
		{dir, Options{OutsidePaths: []string{"usr/share"}}, "must be absolute"},
	} {
		if _, err := New(tc.dir, tc.opts); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %+v) = %v, want %q", tc.dir, tc.opts, err, tc.want)
		}
	}
}

// FuzzDecodeArgs checks that argument decoding never panics and always explains itself
// with an *ArgsError.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{"command":"ls"}`, `{"path":"a","content":"b"}`, `{"recursive":true,"pattern":"*"}`,
		`{"timeout_ms":1e99}`, `[`, `null`, `{"a":1}`, `"x"`, `{"command":"ls"}x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		for _, target := range []any{&shellArgs{}, &readArgs{}, &writeArgs{}, &listArgs{}} {
			err := decodeArgs("tool", []byte(raw), target)
			var ae *ArgsError
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("decodeArgs(%q) = %T %v", raw, err, err)
			}
		}
	})
}
