package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/mcpserve"
)

// `spine mcp serve` as an IDE agent starts it: the binary (this test binary run as
// spine, as testscript does) on stdio, driven by the Go SDK's client over its
// CommandTransport. It lists the spine's verbs and answers check and what-if on the
// shipped rules and a shipped trace.
func TestMCPServeOverStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("../..")
	cmd := &exec.Cmd{Path: exe, Args: []string{"spine", "mcp", "serve", "--dir", repo}, Stderr: &strings.Builder{},
		Env: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}}
	ctx := context.Background()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "ide", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Errorf("closing: %v", err)
		}
		if s := cmd.Stderr.(*strings.Builder).String(); !strings.Contains(s, "run_task is not offered") {
			t.Errorf("stderr %q", s)
		}
	}()
	if got := cs.InitializeResult().ServerInfo.Name; got != "spine" {
		t.Errorf("server %q", got)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if got := strings.Join(names, ","); got != "analyze_rules,check_rules,replay_trace,trace_loss,trace_timeline,what_if" {
		t.Errorf("tools %s", got)
	}

	text := func(res *sdk.CallToolResult, err error) string {
		t.Helper()
		if err != nil || res.IsError {
			t.Fatalf("%v %+v", err, res)
		}
		return res.Content[0].(*sdk.TextContent).Text
	}
	got := text(cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpserve.ToolCheck, Arguments: map[string]any{"path": "rules/ggs.yaml"}}))
	if got != "rules/ggs.yaml: 16 rules, 15 params, 0 warnings\n" {
		t.Errorf("check: %q", got)
	}
	edited := filepath.Join(t.TempDir(), "ggs-theta.yaml")
	b, _ := os.ReadFile(filepath.Join(repo, "rules", "ggs.yaml"))
	os.WriteFile(edited, []byte(strings.Replace(string(b), "\n  theta: 0.8 ", "\n  theta: 0.9 ", 1)), 0o644)
	got = text(cs.CallTool(ctx, &sdk.CallToolParams{Name: mcpserve.ToolWhatIf,
		Arguments: map[string]any{"trace": "fixtures/ggs/abandon_budget.trace.jsonl", "rules": edited}}))
	if !strings.Contains(got, "6 decisions re-decided with "+edited+", 1 changed") ||
		!strings.Contains(got, "* iteration 3, terminate_or_iterate (cycle 6): abandon_budget_spent (abandon) → no rule") {
		t.Errorf("what_if: %q", got)
	}
}
