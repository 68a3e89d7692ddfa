package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/secrets"
	"github.com/agentspine/spine/internal/termtext"
)

// MaxOutput bounds the text a call returns to the model; longer output is cut and says so.
const MaxOutput = 256 << 10

// Options configure Open.
type Options struct {
	Servers []Server
	// Starter starts stdio servers: the run's jail, so that they are confined as the
	// shell is. nil: stdio servers cannot start (each is unavailable).
	Starter sandbox.Starter
	Dir     string // the work dir, absolute
	Env     Env    // where env and header names are read; nil: none is set
	Scrub   *secrets.Scrubber
}

// Tool is one tool of a server as the run saw it (contract.MCPTool), with what the
// toolbox needs to call it.
type Tool struct {
	contract.MCPTool

	schema schema
	srv    *server
}

// Toolbox is R3's toolbox with the servers' tools added after the built-in ones.
type Toolbox struct {
	base    sandbox.Toolbox
	sc      *secrets.Scrubber
	servers []*server
	status  []contract.MCPServer
	tools   []*Tool // offered and refused, in server order then the server's order
	byName  map[string]*Tool

	closeOnce sync.Once
}

var _ sandbox.Toolbox = (*Toolbox)(nil)

// Open starts every server, lists its tools and returns the toolbox. A server that
// cannot be started or listed is recorded as unavailable, offers no tool, and does not
// stop the run; Status says which and why. Close stops every server.
func Open(ctx context.Context, base sandbox.Toolbox, o Options) (*Toolbox, error) {
	if err := CheckAll(o.Servers); err != nil {
		return nil, err
	}
	env := o.Env
	if env == nil {
		env = func(string) (string, bool) { return "", false }
	}
	tb := &Toolbox{base: base, sc: o.Scrub, byName: map[string]*Tool{}}
	taken := map[string]bool{}
	if base != nil {
		for _, s := range base.Specs() {
			taken[s.Name] = true
		}
	}
	for _, cfg := range o.Servers {
		st := contract.MCPServer{Name: cfg.Name, Transport: "stdio"}
		if cfg.URL != "" {
			st.Transport = "http"
		}
		srv, err := connect(ctx, cfg, o.Starter, o.Dir, env)
		var listed []*sdk.Tool
		if err == nil {
			tb.servers = append(tb.servers, srv)
			if listed, err = srv.list(ctx); err != nil {
				srv.fail(err)
			}
		}
		if err != nil {
			st.Unavailable = scrubbed(o.Scrub, err).Error()
			tb.status = append(tb.status, st)
			continue
		}
		tb.status = append(tb.status, st)
		for _, t := range listed {
			tool := tb.admit(srv, t, taken)
			tb.tools = append(tb.tools, tool)
			if tool.Refused == "" {
				taken[tool.Name] = true
				tb.byName[tool.Name] = tool
			}
		}
	}
	return tb, nil
}

// admit decides whether a listed tool is offered, and how it is shown.
func (tb *Toolbox) admit(srv *server, t *sdk.Tool, taken map[string]bool) *Tool {
	tool := &Tool{srv: srv, MCPTool: contract.MCPTool{Server: srv.cfg.Name, Remote: t.Name,
		Description: describe(srv.cfg.Name, t.Description, tb.sc), Target: srv.cfg.Targets[t.Name]}}
	if err := checkToolName(srv.cfg.Name, t.Name); err != nil {
		tool.Remote, tool.Refused = clipRunes(termtext.Line(t.Name), 80), err.Error()
		return tool
	}
	tool.Name = FullName(srv.cfg.Name, t.Name)
	if taken[tool.Name] {
		tool.Refused = "another tool already has the name " + tool.Name
		return tool
	}
	s, err := compileSchema(t.InputSchema)
	if err != nil {
		tool.Refused = err.Error()
		return tool
	}
	tool.schema, tool.Schema = s, s.raw
	if tb.sc != nil && tb.sc.Contains(string(s.raw)) {
		tool.Refused, tool.Schema = "its input schema holds a secret of this run", nil
	}
	return tool
}

// Tools lists every tool the servers listed, offered and refused, in a fixed order.
func (tb *Toolbox) Tools() []Tool {
	out := make([]Tool, len(tb.tools))
	for i, t := range tb.tools {
		out[i] = *t
	}
	return out
}

// Status is how each server's start went, in configuration order.
func (tb *Toolbox) Status() []contract.MCPServer { return slices.Clone(tb.status) }

// Specs implements sandbox.Toolbox: the built-in tools, then the offered MCP tools.
func (tb *Toolbox) Specs() []contract.ModelTool {
	var out []contract.ModelTool
	if tb.base != nil {
		out = tb.base.Specs()
	}
	for _, t := range tb.tools {
		if t.Refused == "" {
			out = append(out, contract.ModelTool{Name: t.Name, Description: t.Description, Parameters: t.Schema})
		}
	}
	return out
}

// Exists passes the work dir's lookup through, for R4a's evidence check.
func (tb *Toolbox) Exists(rel string) (bool, error) {
	if wd, ok := tb.base.(interface{ Exists(string) (bool, error) }); ok {
		return wd.Exists(rel)
	}
	return false, errors.New("the toolbox has no work dir to look in")
}

// ToolTarget is the target of a call of an MCP tool: the argument its server's entry
// names, else the first of DefaultTargetArgs present; ok is false for another tool.
func (tb *Toolbox) ToolTarget(name, args string) (string, bool) {
	t, ok := tb.byName[name]
	if !ok {
		return "", false
	}
	return targetOf(t.Target, args), true
}

func targetOf(configured, args string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	keys := DefaultTargetArgs
	if configured != "" {
		keys = []string{configured}
	}
	for _, k := range keys {
		switch v := m[k].(type) {
		case string:
			return v
		case nil:
		default:
			b, _ := json.Marshal(v)
			return string(b)
		}
	}
	return ""
}

// Call implements sandbox.Toolbox. A built-in tool goes to the base toolbox. An MCP
// tool's arguments are checked against its schema first (a refusal names the field);
// the call is bounded by its server's timeout (a timeout is a result, as for the
// shell). A server that is gone or breaks during the call is an *UnavailableError.
func (tb *Toolbox) Call(ctx context.Context, name string, argsJSON []byte) (contract.ToolResponse, error) {
	if !IsMCP(name) {
		return tb.base.Call(ctx, name, argsJSON)
	}
	t, ok := tb.byName[name]
	if !ok {
		return refused(name, "", fmt.Errorf("unknown tool %q", name))
	}
	target := targetOf(t.Target, string(argsJSON))
	args, err := t.schema.validate(name, argsJSON)
	if err != nil {
		return refused(name, target, err)
	}
	if gone := t.srv.gone(); gone != nil {
		return unavailable(name, target, &UnavailableError{Server: t.Server, Err: gone})
	}
	callCtx, cancel := context.WithTimeout(ctx, t.srv.cfg.timeout())
	defer cancel()
	res, err := t.srv.session.CallTool(callCtx, &sdk.CallToolParams{Name: t.Remote, Arguments: args})
	if ctx.Err() != nil {
		return contract.ToolResponse{}, ctx.Err()
	}
	var wire *jsonrpc.Error
	switch {
	case err != nil && errors.Is(callCtx.Err(), context.DeadlineExceeded):
		out := fmt.Sprintf("[timed out after %s; the call was cancelled]", t.srv.cfg.timeout())
		r := result(name, target, out)
		r.TimedOut, r.ExitCode = true, -1
		return r, nil
	case errors.As(err, &wire):
		// The server answered with an error: it is alive, the call failed.
		r := result(name, target, "error: "+tb.clean(wire.Message))
		r.ExitCode = 1
		return r, nil
	case err != nil:
		return unavailable(name, target, &UnavailableError{Server: t.Server, Err: t.srv.fail(t.srv.explain(err))})
	}
	out, truncated := contentText(res)
	out = tb.clean(out)
	r := result(name, target, out)
	r.Truncated = truncated
	if res.IsError {
		r.ExitCode = 1
	}
	return r, nil
}

// clean makes a server's text fit to journal and to show the model: valid UTF-8 without
// the spine's secrets.
func (tb *Toolbox) clean(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if tb.sc != nil {
		s = tb.sc.String(s)
	}
	return s
}

// contentText is what the model reads of a result: its text parts, other parts named by
// kind and size, the structured content when there is no text; cut to MaxOutput.
func contentText(res *sdk.CallToolResult) (string, bool) {
	var b strings.Builder
	for _, c := range res.Content {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&b, "[image %s, %d bytes]", c.MIMEType, len(c.Data))
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio %s, %d bytes]", c.MIMEType, len(c.Data))
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource %s]", c.URI)
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				b.WriteString(c.Resource.Text)
			} else if c.Resource != nil {
				fmt.Fprintf(&b, "[resource %s, %d bytes]", c.Resource.URI, len(c.Resource.Blob))
			}
		default:
			b.WriteString("[content of an unknown kind]")
		}
		if b.Len() > MaxOutput {
			break
		}
	}
	if b.Len() == 0 && res.StructuredContent != nil {
		if j, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(j)
		}
	}
	s := b.String()
	if len(s) > MaxOutput {
		cut := MaxOutput
		for cut > 0 && !utf8RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + fmt.Sprintf("\n[output cut at %d of %d bytes]", cut, len(s)), true
	}
	return s, false
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

func result(tool, target, output string) contract.ToolResponse {
	return contract.ToolResponse{Tool: tool, Target: target, Output: output, Evidence: contract.FormatToolCall(tool, target, output)}
}

func refused(tool, target string, err error) (contract.ToolResponse, error) {
	r := result(tool, target, "refused: "+err.Error())
	r.Refused, r.ExitCode = true, -1
	return r, err
}

func unavailable(tool, target string, err *UnavailableError) (contract.ToolResponse, error) {
	r := result(tool, target, "error: "+err.Error())
	r.ExitCode = -1
	return r, err
}

// Close stops every server and everything they started.
func (tb *Toolbox) Close() error {
	tb.closeOnce.Do(func() {
		var wg sync.WaitGroup
		for _, s := range tb.servers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.fail(errClosed)
			}()
		}
		wg.Wait()
	})
	return nil
}

// Describe is the tool list for the trace header (contract.MetaMCPTools): every tool the
// servers listed, with what R3 was told, and each server that could not start
// (runlog.MCPTools reads it).
func (tb *Toolbox) Describe() string {
	d := contract.MCPTools{Servers: tb.Status(), Tools: make([]contract.MCPTool, len(tb.tools))}
	for i, t := range tb.tools {
		d.Tools[i] = t.MCPTool
	}
	b, _ := json.Marshal(d)
	return string(b)
}
