package mcpserve

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/effectors/llm"
	"github.com/agentspine/spine/effectors/mcp"
)

// Options configure New.
type Options struct {
	// Dir is where relative paths in a tool's arguments are read from (the directory
	// the server was started in); "" is the process's working directory.
	Dir string
	// Version is the spine's version, told to the client.
	Version string
	// Run, when set, offers run_task: a model is configured. nil: the tool is not listed.
	Run *RunOptions
}

// RunOptions are what run_task runs a task with: the model configuration `spine run`
// would use.
type RunOptions struct {
	LLM        llm.Config
	ConfigPath string        // the file LLM was read from, kept out of the work dir
	Chat       llm.ChatModel // nil: the OpenAI-compatible client of LLM
	MCPServers []mcp.Server  // servers whose tools R3 is offered
	NoSandbox  bool          // run R3's tools unconfined
	TraceDir   string        // "" : where `spine run` puts traces
}

// Tool names, as the client sees them.
const (
	ToolCheck    = "check_rules"
	ToolAnalyze  = "analyze_rules"
	ToolReplay   = "replay_trace"
	ToolWhatIf   = "what_if"
	ToolLoss     = "trace_loss"
	ToolTimeline = "trace_timeline"
	ToolRunTask  = "run_task"
)

// New is the server with the spine's verbs as tools; serve it with Run on a transport.
func New(o Options) *sdk.Server {
	version := o.Version
	if version == "" {
		version = "dev"
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "spine", Version: version}, &sdk.ServerOptions{
		Instructions: "The spine's own verbs: check and analyse GGS rule files, replay a recorded trace, " +
			"re-decide it with edited rules (what_if), and read a trace's loss table and timeline. " +
			"Paths are files on the machine the spine runs on; relative ones are read from " + dirOf(o.Dir) + ".",
	})
	v := &verbs{dir: o.Dir, run: o.Run}
	addReadOnly(s, ToolCheck, "Check a rule file: every load error with its line and column, unused params, rules that never fire.", v.check)
	addReadOnly(s, ToolAnalyze, "Analyse a rule file: partition the signal space and report gaps (no rule fires), overlaps (rules tie) and the regions each rule wins; with expect, the decision table the rules must reproduce.", v.analyze)
	addReadOnly(s, ToolReplay, "Replay a recorded trace without calling any model or tool: with its recorded rules it must reproduce the recording byte for byte; with other rules, say how the run would have ended.", v.replay)
	addReadOnly(s, ToolWhatIf, "Re-decide every recorded decision of a trace with an edited rule file and list where the decision changes, with the facts the rules read: what these rules would have decided.", v.whatIf)
	addReadOnly(s, ToolLoss, "A trace's loss table: one row per GGS round with D, P, Ω, L, ∇L, the directive, the rule that decided it and the blocked tools and targets.", v.loss)
	addReadOnly(s, ToolTimeline, "A trace's timeline: every model call, tool call (built-in and MCP), plan check and message in order, and how the run ended.", v.timeline)
	if o.Run != nil {
		sdk.AddTool(s, &sdk.Tool{Name: ToolRunTask, Annotations: &sdk.ToolAnnotations{OpenWorldHint: ptr(true)},
			Description: "Run a task live with the configured model: R3 works in workdir inside the sandbox and the rules decide how the task ends. Returns the final result and the trace's path."}, v.runTask)
	}
	return s
}

// addReadOnly adds a tool that only reads files: calling it again with the same
// arguments answers the same.
func addReadOnly[In, Out any](s *sdk.Server, name, description string, h sdk.ToolHandlerFor[In, Out]) {
	sdk.AddTool(s, &sdk.Tool{Name: name, Description: description,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true}}, h)
}

func ptr[T any](v T) *T { return &v }

func dirOf(d string) string {
	if d == "" {
		return "the server's working directory"
	}
	return d
}

// verbs holds what the tool handlers share.
type verbs struct {
	dir string
	run *RunOptions
}

// path resolves a tool's path argument.
func (v *verbs) path(arg, p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", fmt.Errorf("%s is empty", arg)
	}
	if filepath.IsAbs(p) || v.dir == "" {
		return p, nil
	}
	return filepath.Join(v.dir, p), nil
}

// textResult is an answer as text content; the structured content is the SDK's, from
// the handler's output.
func textResult(text string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}}
}

// Serve serves the verbs on t until the client goes or ctx ends.
func Serve(ctx context.Context, o Options, t sdk.Transport) error {
	return New(o).Run(ctx, t)
}

// StreamTransport is MCP over a process's stdin (r) and stdout (w): the protocol's
// bytes as they are. Closing it closes neither stream.
func StreamTransport(r io.Reader, w io.Writer) sdk.Transport {
	return &sdk.IOTransport{Reader: io.NopCloser(r), Writer: nopWriteCloser{w}}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
