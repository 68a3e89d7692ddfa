package mcpserve

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// repo is the repository's root: the shipped rules and fixtures are read from there, as
// an IDE agent started in a checkout would name them.
var repo, _ = filepath.Abs("..")

// connect serves o in memory and returns a client session of the Go SDK's client.
func connect(t *testing.T, o Options) *sdk.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := sdk.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, o, st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
	})
	return cs
}

// call calls a tool and returns its text and its structured content decoded into out.
func call(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: structured content %s: %v", name, b, err)
		}
	}
	return text.String(), res.IsError
}

// editedRules is the shipped GGS rules with θ raised from 0.8 to 0.9, in a temp dir.
func editedRules(t *testing.T) string {
	b, err := os.ReadFile(filepath.Join(repo, "rules", "ggs.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), "\n  theta: 0.8 ", "\n  theta: 0.9 ", 1)
	if edited == string(b) {
		t.Fatal("rules/ggs.yaml no longer sets theta: 0.8")
	}
	p := filepath.Join(t.TempDir(), "ggs-theta.yaml")
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestToolsListed(t *testing.T) {
	cs := connect(t, Options{Dir: repo})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Description == "" || tl.InputSchema == nil || tl.OutputSchema == nil {
			t.Errorf("%s: description, input or output schema missing", tl.Name)
		}
	}
	want := []string{ToolAnalyze, ToolCheck, ToolReplay, ToolLoss, ToolTimeline, ToolWhatIf}
	slices.Sort(names)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v (run_task only with a model)", names, want)
	}
}

func TestCheckAndAnalyzeShippedRules(t *testing.T) {
	cs := connect(t, Options{Dir: repo})
	var out CheckOutput
	text, isErr := call(t, cs, ToolCheck, map[string]any{"path": "rules/ggs.yaml"}, &out)
	if isErr || !out.Loads || len(out.Errors) != 0 || len(out.Warnings) != 0 {
		t.Fatalf("check: %s %+v", text, out)
	}
	if !strings.Contains(text, "rules/ggs.yaml: 16 rules, 15 params, 0 warnings") {
		t.Errorf("check text: %q", text)
	}
	text, isErr = call(t, cs, ToolAnalyze, map[string]any{"path": "rules/ggs.yaml"}, &out)
	if isErr || out.Regions == 0 || !strings.Contains(out.Summary, "gap") || !strings.Contains(text, out.Summary) {
		t.Errorf("analyze: %s %+v", text, out)
	}

	// A rule file with an error: the answer lists it with its line, the call succeeds.
	bad := filepath.Join(t.TempDir(), "typo.yaml")
	b, _ := os.ReadFile(filepath.Join(repo, "rules", "ggs.yaml"))
	os.WriteFile(bad, []byte(strings.Replace(string(b), "params.theta", "params.thetta", 1)), 0o644)
	text, isErr = call(t, cs, ToolCheck, map[string]any{"path": bad}, &out)
	if isErr || out.Loads || len(out.Errors) == 0 || !strings.Contains(out.Errors[0], `unknown param "thetta"`) ||
		!strings.Contains(out.Errors[0], "typo.yaml:") {
		t.Errorf("check of a bad file: %s %+v", text, out)
	}
}

func TestWhatIfAndReplayShippedTrace(t *testing.T) {
	cs := connect(t, Options{Dir: repo})
	edited := editedRules(t)
	trace := "fixtures/ggs/abandon_budget.trace.jsonl"
	var wi WhatIfOutput
	text, isErr := call(t, cs, ToolWhatIf, map[string]any{"trace": trace, "rules": edited}, &wi)
	if isErr || wi.Decisions != 6 || len(wi.Changed) != 1 {
		t.Fatalf("what_if: %s %+v", text, wi)
	}
	c := wi.Changed[0]
	if c.Iteration != 3 || c.Stage != "terminate_or_iterate" || c.Recorded != "abandon_budget_spent" || c.Edited != "" {
		t.Errorf("changed decision %+v", c)
	}
	for _, want := range []string{"6 decisions re-decided with", "1 changed", "abandon_budget_spent (abandon) → no rule",
		"the recorded run ended here; the edited rules would have gone on"} {
		if !strings.Contains(text, want) {
			t.Errorf("what_if text lacks %q:\n%s", want, text)
		}
	}
	// With the recorded rules nothing changes.
	call(t, cs, ToolWhatIf, map[string]any{"trace": trace, "rules": "rules/ggs.yaml"}, &wi)
	if len(wi.Changed) != 0 {
		t.Errorf("what_if with the recorded rules changed %+v", wi.Changed)
	}

	var rp ReplayOutput
	text, isErr = call(t, cs, ToolReplay, map[string]any{"path": trace}, &rp)
	if isErr || !rp.OK || !rp.Identical || !strings.Contains(text, "identical to the recording") || !strings.Contains(rp.Ending, "failure") {
		t.Errorf("replay: %s %+v", text, rp)
	}
	// With the edited rules the run goes on past the recording's end: the replay says so.
	text, _ = call(t, cs, ToolReplay, map[string]any{"path": trace, "rules": edited}, &rp)
	if rp.OK || rp.Identical || rp.OtherRules == "" || rp.Error == "" {
		t.Errorf("replay with edited rules: %s %+v", text, rp)
	}
}

func TestLossAndTimeline(t *testing.T) {
	cs := connect(t, Options{Dir: repo})
	trace := "fixtures/ggs/abandon_budget.trace.jsonl"
	var loss struct {
		Trace  string `json:"trace"`
		Rounds []struct {
			Round     int     `json:"round"`
			Omega     float64 `json:"Omega"`
			Directive string  `json:"directive"`
			Rule      string  `json:"rule"`
		} `json:"rounds"`
	}
	text, isErr := call(t, cs, ToolLoss, map[string]any{"path": trace}, &loss)
	if isErr || len(loss.Rounds) != 3 || loss.Rounds[2].Directive != "abandon" || loss.Rounds[2].Rule != "abandon_budget_spent" || loss.Rounds[2].Omega != 0.8 {
		t.Fatalf("loss: %s %+v", text, loss)
	}
	if !strings.Contains(text, "  3      1.000  0.000  0.800  0.920  +0.160 ↑  abandon      abandon_budget_spent") {
		t.Errorf("loss table:\n%s", text)
	}

	var tl TimelineOutput
	pipeline := "fixtures/pipeline/change_path_then_accept.trace.jsonl"
	text, isErr = call(t, cs, ToolTimeline, map[string]any{"path": pipeline}, &tl)
	if isErr || len(tl.Items) == 0 || !strings.HasPrefix(tl.Ended, "success") {
		t.Fatalf("timeline: %s %+v", text, tl.Ended)
	}
	kinds := map[string]int{}
	for _, it := range tl.Items {
		kinds[it.Kind]++
	}
	if kinds["model"] == 0 || kinds["tool"] == 0 || kinds["message"] == 0 {
		t.Errorf("timeline kinds %v", kinds)
	}
	if !strings.Contains(text, "ended: success") {
		t.Errorf("timeline text:\n%s", text)
	}
}

// Bad arguments are refused by the tools' schemas before a handler runs, and a path
// that is not there is a failed call naming it.
func TestBadArguments(t *testing.T) {
	cs := connect(t, Options{Dir: repo})
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{ToolCheck, map[string]any{}, "path"},
		{ToolCheck, map[string]any{"path": 3}, "path"},
		{ToolWhatIf, map[string]any{"trace": "fixtures/ggs/accept.trace.jsonl"}, "rules"},
		{ToolCheck, map[string]any{"path": "rules/nope.yaml"}, "nope.yaml"},
		{ToolLoss, map[string]any{"path": "nope.trace.jsonl"}, "nope.trace.jsonl"},
		{ToolReplay, map[string]any{"path": ""}, "path is empty"},
	} {
		text, isErr := call(t, cs, tc.tool, tc.args, nil)
		if !isErr || !strings.Contains(text, tc.want) {
			t.Errorf("%s %v: error %v, %q; want an error naming %q", tc.tool, tc.args, isErr, text, tc.want)
		}
	}
}
