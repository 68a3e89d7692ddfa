package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/strictjson"
)

// Toolbox is what an executor needs from a sandbox: the tools' declarations and a way
// to call one by name with the model's JSON arguments.
type Toolbox interface {
	Specs() []contract.ModelTool
	Call(ctx context.Context, name string, argsJSON []byte) (contract.ToolResponse, error)
}

var _ Toolbox = (*Sandbox)(nil)

// Specs returns the four tools' declarations, in a fixed order.
func (s *Sandbox) Specs() []contract.ModelTool {
	return []contract.ModelTool{
		{
			Name: ToolShell,
			Description: fmt.Sprintf("Run a shell command with sh -c in the working directory. Output (stdout and stderr) "+
				"is cut to %d bytes; the command is killed after %s unless timeout_ms asks for less. "+
				"Paths outside the working directory and destructive commands are refused.", s.opts.MaxOutput, s.opts.Timeout),
			Parameters: json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{`+
				`"command":{"type":"string","description":"the command line"},`+
				`"timeout_ms":{"type":"integer","minimum":1,"maximum":%d,"description":"time limit in milliseconds"}},`+
				`"required":["command"],"additionalProperties":false}`, s.opts.Timeout.Milliseconds())),
		},
		{
			Name:        ToolReadFile,
			Description: fmt.Sprintf("Read a text file inside the working directory (at most %d bytes are returned).", s.opts.MaxRead),
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"file path, relative to the working directory"}},` +
				`"required":["path"],"additionalProperties":false}`),
		},
		{
			Name:        ToolWriteFile,
			Description: "Write a file inside the working directory, replacing it if it exists and creating parent directories.",
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"file path, relative to the working directory"},` +
				`"content":{"type":"string","description":"the complete new content"}},` +
				`"required":["path","content"],"additionalProperties":false}`),
		},
		{
			Name:        ToolListFiles,
			Description: fmt.Sprintf("List entries of a directory inside the working directory, sorted, at most %d. Directories end in /, symlinks in @.", s.opts.MaxList),
			Parameters: json.RawMessage(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"directory, relative to the working directory; default ."},` +
				`"pattern":{"type":"string","description":"glob on entry names, e.g. *.go; default *"},` +
				`"recursive":{"type":"boolean","description":"descend into subdirectories"}},` +
				`"additionalProperties":false}`),
		},
	}
}

type shellArgs struct {
	Command   *string `json:"command"`
	TimeoutMS *int64  `json:"timeout_ms"`
}

type readArgs struct {
	Path *string `json:"path"`
}

type writeArgs struct {
	Path    *string `json:"path"`
	Content *string `json:"content"`
}

type listArgs struct {
	Path      string `json:"path"`
	Pattern   string `json:"pattern"`
	Recursive bool   `json:"recursive"`
}

// knownFields lists each tool's argument names for error messages.
var knownFields = map[string]string{
	ToolShell:     "command, timeout_ms",
	ToolReadFile:  "path",
	ToolWriteFile: "path, content",
	ToolListFiles: "path, pattern, recursive",
}

// Call runs the named tool with the model's JSON arguments. Arguments that do not fit
// the tool's schema give an *ArgsError naming the field; the result still carries an
// evidence entry so the attempt is on record.
func (s *Sandbox) Call(ctx context.Context, name string, argsJSON []byte) (contract.ToolResponse, error) {
	switch name {
	case ToolShell:
		var a shellArgs
		if err := decodeArgs(name, argsJSON, &a); err != nil {
			return refusal(name, "", err)
		}
		if a.Command == nil || strings.TrimSpace(*a.Command) == "" {
			return refusal(name, "", &ArgsError{Tool: name, Field: "command", Problem: "required: a non-empty string"})
		}
		var timeout time.Duration
		if a.TimeoutMS != nil {
			if *a.TimeoutMS < 1 || *a.TimeoutMS > s.opts.Timeout.Milliseconds() {
				return refusal(name, *a.Command, &ArgsError{Tool: name, Field: "timeout_ms",
					Problem: fmt.Sprintf("%d is outside 1..%d", *a.TimeoutMS, s.opts.Timeout.Milliseconds())})
			}
			timeout = time.Duration(*a.TimeoutMS) * time.Millisecond
		}
		return s.Shell(ctx, *a.Command, timeout)
	case ToolReadFile:
		var a readArgs
		if err := decodeArgs(name, argsJSON, &a); err != nil {
			return refusal(name, "", err)
		}
		if a.Path == nil || *a.Path == "" {
			return refusal(name, "", &ArgsError{Tool: name, Field: "path", Problem: "required: a non-empty string"})
		}
		return s.ReadFile(ctx, *a.Path)
	case ToolWriteFile:
		var a writeArgs
		if err := decodeArgs(name, argsJSON, &a); err != nil {
			return refusal(name, "", err)
		}
		if a.Path == nil || *a.Path == "" {
			return refusal(name, "", &ArgsError{Tool: name, Field: "path", Problem: "required: a non-empty string"})
		}
		if a.Content == nil {
			return refusal(name, *a.Path, &ArgsError{Tool: name, Field: "content", Problem: "required: a string (may be empty)"})
		}
		return s.WriteFile(ctx, *a.Path, *a.Content)
	case ToolListFiles:
		var a listArgs
		if err := decodeArgs(name, argsJSON, &a); err != nil {
			return refusal(name, "", err)
		}
		return s.ListFiles(ctx, a.Path, a.Pattern, a.Recursive)
	}
	return refusal(name, "", &RefusedError{Tool: name, Kind: ErrUnknownTool,
		Reason: fmt.Sprintf("unknown tool %q; the tools are %s, %s, %s, %s", name, ToolListFiles, ToolReadFile, ToolShell, ToolWriteFile)})
}

// decodeArgs decodes a tool's arguments strictly. Empty arguments count as {}.
func decodeArgs(tool string, raw []byte, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		raw = []byte("{}")
	}
	err := strictjson.Decode(raw, v)
	if err == nil {
		return nil
	}
	if errors.Is(err, strictjson.ErrTrailing) {
		return &ArgsError{Tool: tool, Problem: "extra data after the JSON object"}
	}
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te) && te.Field != "":
		return &ArgsError{Tool: tool, Field: te.Field, Problem: fmt.Sprintf("want %s, got a JSON %s", jsonType(te.Type.String()), te.Value)}
	case errors.As(err, &te):
		return &ArgsError{Tool: tool, Problem: fmt.Sprintf("want a JSON object, got a JSON %s", te.Value)}
	case errors.As(err, &se):
		return &ArgsError{Tool: tool, Problem: fmt.Sprintf("not valid JSON at offset %d: %v", se.Offset, err)}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ArgsError{Tool: tool, Problem: "not valid JSON: it ends before the object closes"}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &ArgsError{Tool: tool, Field: field, Problem: "unknown field; the fields are " + knownFields[tool]}
	}
	return &ArgsError{Tool: tool, Problem: err.Error()}
}

// jsonType names a Go argument type the way a schema would.
func jsonType(goType string) string {
	switch strings.TrimPrefix(goType, "*") {
	case "string":
		return "a string"
	case "int64", "int":
		return "an integer"
	case "bool":
		return "a boolean"
	}
	return goType
}
