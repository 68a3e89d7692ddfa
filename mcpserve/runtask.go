package mcpserve

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/taskrun"
)

// RunInput is run_task's arguments.
type RunInput struct {
	Task          string `json:"task" jsonschema:"what to do, in the user's words"`
	Workdir       string `json:"workdir" jsonschema:"the directory R3's tools work in; they cannot leave it"`
	Rules         string `json:"rules,omitempty" jsonschema:"a rule file to run with instead of the shipped rules"`
	MaxIterations int    `json:"max_iterations,omitempty" jsonschema:"bound on the engine's iterations (default: spine run's)"`
}

// RunOutput is how the task ended.
type RunOutput struct {
	Trace     string `json:"trace"`
	Outcome   string `json:"outcome"`
	Objective string `json:"objective"`
	Directive string `json:"directive,omitempty"` // the FinalResult's
	Reason    string `json:"reason,omitempty"`
	Summary   string `json:"summary,omitempty"`
	Error     string `json:"error,omitempty"`
}

func (v *verbs) runTask(ctx context.Context, _ *sdk.CallToolRequest, in RunInput) (*sdk.CallToolResult, RunOutput, error) {
	wd, err := v.path("workdir", in.Workdir)
	if err != nil {
		return nil, RunOutput{}, err
	}
	cfg := taskrun.Config{Task: in.Task, Workdir: wd, LLM: v.run.LLM, ConfigPath: v.run.ConfigPath, Chat: v.run.Chat,
		MCPServers: v.run.MCPServers, NoSandbox: v.run.NoSandbox, TraceDir: v.run.TraceDir, MaxIterations: in.MaxIterations}
	if in.Rules != "" {
		if cfg.RulesPath, err = v.path("rules", in.Rules); err != nil {
			return nil, RunOutput{}, err
		}
	}
	var warnings []string
	cfg.Warn = func(msg string) { warnings = append(warnings, msg) }
	res, runErr := taskrun.RunTask(ctx, cfg)
	if res.TracePath == "" {
		return nil, RunOutput{}, runErr // refused before anything ran
	}
	out := RunOutput{Trace: res.TracePath, Outcome: res.Result.Outcome, Objective: res.Result.Objective, Reason: res.Result.Reason}
	if f := res.Final; f != nil {
		out.Directive, out.Summary = f.Directive, f.Summary
		if f.Reason != "" {
			out.Reason = f.Reason
		}
	}
	if runErr != nil {
		out.Error = runErr.Error()
	}
	var b strings.Builder
	for _, w := range warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	fmt.Fprintf(&b, "%s (objective %s)", out.Outcome, out.Objective)
	if out.Directive != "" {
		fmt.Fprintf(&b, ", final directive %s", out.Directive)
	}
	if out.Reason != "" {
		fmt.Fprintf(&b, ": %s", out.Reason)
	}
	b.WriteString("\n")
	if out.Summary != "" {
		fmt.Fprintf(&b, "summary: %s\n", out.Summary)
	}
	if out.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", out.Error)
	}
	fmt.Fprintf(&b, "trace: %s\n", out.Trace)
	return textResult(b.String()), out, nil
}
