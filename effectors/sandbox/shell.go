package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/agentspine/spine/contract"
)

// ToolShell and the other tool names, as the model calls them and as evidence entries
// begin.
const (
	ToolShell     = "shell"
	ToolReadFile  = "read_file"
	ToolWriteFile = "write_file"
	ToolListFiles = "list_files"
)

// waitDelay bounds how long a killed command's leftover output pipes are waited for.
const waitDelay = 500 * time.Millisecond

// result completes a ToolResult with its evidence entry.
func result(tool, target, output string) contract.ToolResponse {
	return contract.ToolResponse{Tool: tool, Target: target, Output: output, Evidence: contract.FormatToolCall(tool, target, output)}
}

// refusal is the ToolResult of a call that did not run; its output tells the model why.
func refusal(tool, target string, err error) (contract.ToolResponse, error) {
	why := err.Error()
	var re *RefusedError
	if errors.As(err, &re) {
		why = re.Reason
	}
	r := result(tool, target, "refused: "+why)
	r.Refused, r.ExitCode = true, -1
	return r, err
}

// Shell runs command with sh -c in the root. timeout 0 means the sandbox's limit; a
// larger one is an error. The command is checked first (policy, paths, destructive forms;
// see the package doc).
func (s *Sandbox) Shell(ctx context.Context, command string, timeout time.Duration) (contract.ToolResponse, error) {
	switch {
	case timeout < 0 || timeout > s.opts.Timeout:
		return refusal(ToolShell, command, &ArgsError{Tool: ToolShell, Field: "timeout_ms",
			Problem: fmt.Sprintf("%d is outside 1..%d", timeout.Milliseconds(), s.opts.Timeout.Milliseconds())})
	case timeout == 0:
		timeout = s.opts.Timeout
	}
	if strings.TrimSpace(command) == "" {
		return refusal(ToolShell, command, &ArgsError{Tool: ToolShell, Field: "command", Problem: "empty command"})
	}
	if !s.opts.skipWordCheck {
		if err := s.checkCommand(ctx, command); err != nil {
			return refusal(ToolShell, command, err)
		}
	}

	jail, err := s.jail()
	if err != nil {
		return refusal(ToolShell, command, &RefusedError{Tool: ToolShell, Target: command, Kind: ErrNoIsolation, Reason: err.Error()})
	}
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out := newCapBuffer(s.opts.MaxOutput)
	rep, runErr := jail.Run(callCtx, Process{Script: command, Dir: s.root, Env: s.env, Out: out})

	if err := ctx.Err(); err != nil {
		return contract.ToolResponse{}, fmt.Errorf("shell %q: %w", command, err)
	}
	text, truncated := out.String()
	res := contract.ToolResponse{Tool: ToolShell, Target: command, Truncated: truncated}
	var exitErr *exec.ExitError
	switch {
	case errors.Is(callCtx.Err(), context.DeadlineExceeded):
		res.TimedOut, res.ExitCode = true, -1
		text = appendLine(text, fmt.Sprintf("[timed out after %s; process group killed]", timeout))
	case runErr == nil:
	case errors.As(runErr, &exitErr):
		res.ExitCode = exitErr.ExitCode()
		text = appendLine(text, fmt.Sprintf("[exit status %d]", res.ExitCode))
	case errors.Is(runErr, exec.ErrWaitDelay):
		text = appendLine(text, "[a background process kept the output open; it was closed]")
	default:
		return contract.ToolResponse{}, fmt.Errorf("shell %q: %w", command, runErr)
	}
	if len(rep.Limits) > 0 {
		text = appendLine(text, "[limit reached: "+strings.Join(rep.Limits, ", ")+"]")
	}
	res.Output = text
	res.Evidence = contract.FormatToolCall(ToolShell, command, text)
	return res, nil
}

func appendLine(text, line string) string {
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + line
}

// checkCommand applies the policy, the path check and the destructive-command gate.
func (s *Sandbox) checkCommand(ctx context.Context, command string) error {
	refuse := func(kind error, reason string) error {
		return &RefusedError{Tool: ToolShell, Target: command, Kind: kind, Reason: reason}
	}
	cmds, err := parseCommand(command)
	if err != nil {
		return refuse(ErrUnparsable, fmt.Sprintf("the command cannot be checked: %v", err))
	}
	chains := make([]commandChain, len(cmds))
	for i, sc := range cmds {
		chains[i] = chainOf(sc)
	}
	if reason := s.opts.Policy.check(chains); reason != "" {
		return refuse(ErrDenied, reason)
	}
	if reason := s.checkPaths(cmds, chains); reason != "" {
		return refuse(ErrOutsideRoot, reason)
	}
	if reasons := s.destructiveReasons(cmds, chains); len(reasons) > 0 {
		ok, err := s.opts.Confirmer.Confirm(ctx, Confirmation{Tool: ToolShell, Command: command, Reasons: reasons})
		if err != nil || !ok {
			why := "not confirmed"
			if err != nil {
				why = "confirmation failed: " + err.Error()
			}
			return refuse(ErrDestructive, fmt.Sprintf("destructive command %s (%s)", why, strings.Join(reasons, "; ")))
		}
	}
	return nil
}
