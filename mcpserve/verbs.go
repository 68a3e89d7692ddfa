package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/analysis"
	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/replay"
	"github.com/agentspine/spine/spine/ruleset"
)

// CheckInput is check_rules' arguments.
type CheckInput struct {
	Path       string   `json:"path" jsonschema:"the rule file (YAML) to check"`
	HostParams []string `json:"host_params,omitempty" jsonschema:"params a host program reads, not reported as unused"`
}

// AnalyzeInput is analyze_rules' arguments.
type AnalyzeInput struct {
	Path    string `json:"path" jsonschema:"the rule file (YAML) to analyse"`
	Domains string `json:"domains,omitempty" jsonschema:"signal domains file (default: the rule file's domains: key, else <rulefile>.domains.yaml beside it)"`
	Expect  string `json:"expect,omitempty" jsonschema:"decision table file the rules must reproduce"`
}

// CheckOutput is what checking (and analysing) a rule file found.
type CheckOutput struct {
	File string `json:"file"`
	// Loads is false when the file has load errors (Errors).
	Loads    bool     `json:"loads"`
	Errors   []string `json:"errors"`
	Warnings []string `json:"warnings"`
	// The analysis' counts (analyze_rules only).
	Regions        int    `json:"regions,omitempty"`
	Gaps           int    `json:"gaps,omitempty"`
	Overlaps       int    `json:"overlaps,omitempty"`
	Undecided      int    `json:"undecided,omitempty"`
	ExpectedHold   bool   `json:"expected_cells_hold,omitempty"`
	ExpectedChecks int    `json:"expected_cells,omitempty"`
	Summary        string `json:"summary"`
}

func (v *verbs) check(ctx context.Context, _ *sdk.CallToolRequest, in CheckInput) (*sdk.CallToolResult, CheckOutput, error) {
	return v.checkFile(in.Path, analysis.FileCheck{HostParams: in.HostParams, Budget: analysis.DefaultBudget})
}

func (v *verbs) analyze(ctx context.Context, _ *sdk.CallToolRequest, in AnalyzeInput) (*sdk.CallToolResult, CheckOutput, error) {
	fc := analysis.FileCheck{Analyze: true, Budget: analysis.DefaultBudget}
	var err error
	if in.Domains != "" {
		if fc.Domains, err = v.path("domains", in.Domains); err != nil {
			return nil, CheckOutput{}, err
		}
	}
	if in.Expect != "" {
		if fc.Expect, err = v.path("expect", in.Expect); err != nil {
			return nil, CheckOutput{}, err
		}
	}
	return v.checkFile(in.Path, fc)
}

// checkFile runs analysis.CheckFile as `spine check` does. Load errors are the answer
// (loads: false), not a failed call; a file that cannot be read is a failed call.
func (v *verbs) checkFile(p string, fc analysis.FileCheck) (*sdk.CallToolResult, CheckOutput, error) {
	path, err := v.path("path", p)
	if err != nil {
		return nil, CheckOutput{}, err
	}
	fc.HostParamsOf = func(name string) []string { return map[string][]string{"ggs": ggs.HostParams}[name] }
	out := CheckOutput{File: p, Errors: []string{}, Warnings: []string{}}
	var text strings.Builder
	checked, err := analysis.CheckFile(path, fc)
	var les ruleset.LoadErrors
	switch {
	case errors.As(err, &les):
		for _, e := range les {
			out.Errors = append(out.Errors, e.Error())
			fmt.Fprintln(&text, e.Error())
		}
		out.Summary = fmt.Sprintf("%d load error(s)", len(les))
		fmt.Fprintf(&text, "%s: %s\n", p, out.Summary)
		return textResult(text.String()), out, nil
	case err != nil:
		return nil, CheckOutput{}, err
	}
	out.Loads = true
	for _, w := range checked.Report.Warnings {
		out.Warnings = append(out.Warnings, w.String())
		fmt.Fprintln(&text, w.String())
	}
	if fc.Analyze {
		rep := checked.Report
		if err := rep.WriteText(&text); err != nil {
			return nil, CheckOutput{}, err
		}
		out.Regions, out.Gaps, out.Overlaps, out.Undecided = len(rep.Regions), len(rep.Gaps()), len(rep.Overlaps()), len(rep.Undecided())
		if len(rep.Cells) > 0 {
			_, out.ExpectedChecks, _ = analysis.CellTally(rep.Cells)
			out.ExpectedHold = checked.CellsHold()
		}
	}
	out.Summary = checked.Summary(fc.Analyze)
	fmt.Fprintf(&text, "%s: %s\n", p, out.Summary)
	return textResult(text.String()), out, nil
}

// ReplayInput is replay_trace's arguments.
type ReplayInput struct {
	Path  string `json:"path" jsonschema:"the recorded trace (.trace.jsonl)"`
	Rules string `json:"rules,omitempty" jsonschema:"a rule file to replay with instead of the recorded rules; the run may then diverge, and is not compared byte for byte"`
}

// ReplayOutput is what replaying a trace found.
type ReplayOutput struct {
	Trace string `json:"trace"`
	// OK is the replay's verdict: with the recorded rules, identical to the recording and
	// its hash chain intact; with other rules, the replay ran.
	OK         bool   `json:"ok"`
	Identical  bool   `json:"identical"`
	Lines      int    `json:"lines"`
	Ending     string `json:"ending"`
	Chain      string `json:"chain"`
	Diff       string `json:"diff,omitempty"`
	Error      string `json:"error,omitempty"`
	OtherRules string `json:"other_rules,omitempty"`
	Incomplete string `json:"incomplete,omitempty"`
}

func (v *verbs) replay(ctx context.Context, _ *sdk.CallToolRequest, in ReplayInput) (*sdk.CallToolResult, ReplayOutput, error) {
	path, err := v.path("path", in.Path)
	if err != nil {
		return nil, ReplayOutput{}, err
	}
	o := replay.CheckOptions{Compare: in.Rules == ""}
	if in.Rules != "" {
		rp, err := v.path("rules", in.Rules)
		if err != nil {
			return nil, ReplayOutput{}, err
		}
		if o.Rules, err = engine.LoadRulesFile(rp); err != nil {
			return nil, ReplayOutput{}, err
		}
	}
	r := replay.Check(ctx, path, o)
	if r.Failed != nil {
		return nil, ReplayOutput{}, fmt.Errorf("%s: %w", in.Path, r.Failed)
	}
	out := ReplayOutput{Trace: in.Path, OK: r.OK(), Identical: r.Identical, Lines: r.Lines, Ending: r.Ending(),
		Chain: r.ChainNote(), OtherRules: r.OtherRules, Incomplete: r.Incomplete}
	if r.ChainErr != nil {
		out.Chain = "hash chain broken: " + r.ChainErr.Error()
	}
	if r.Diff != nil {
		out.Diff = r.Diff.String()
	}
	if r.ReplayErr != nil {
		out.Error = r.ReplayErr.Error()
	}
	var text strings.Builder
	if out.OtherRules != "" {
		fmt.Fprintf(&text, "%s: %s\n", in.Path, out.OtherRules)
	}
	switch {
	case out.Diff != "":
		fmt.Fprintf(&text, "%s: differs from the recording at %s\n", in.Path, out.Diff)
	case out.Error != "":
		fmt.Fprintf(&text, "%s: %s\n", in.Path, out.Error)
	case r.Compare && r.ChainErr != nil:
		fmt.Fprintf(&text, "%s: the replay is identical to the recording (%d lines), but %s · %s\n", in.Path, r.Lines, out.Chain, out.Ending)
	case r.Compare:
		fmt.Fprintf(&text, "%s: identical to the recording (%d lines, %s) · %s\n", in.Path, r.Lines, out.Chain, out.Ending)
	default:
		fmt.Fprintf(&text, "%s: replayed: %s\n", in.Path, r.ReplayedEnding())
	}
	if out.Incomplete != "" {
		fmt.Fprintf(&text, "%s: %s\n", in.Path, out.Incomplete)
	}
	return textResult(text.String()), out, nil
}

// WhatIfInput is what_if's arguments.
type WhatIfInput struct {
	Trace string `json:"trace" jsonschema:"the recorded trace (.trace.jsonl)"`
	Rules string `json:"rules" jsonschema:"the edited rule file to decide with"`
	All   bool   `json:"all,omitempty" jsonschema:"list every decision, not only the changed ones"`
}

// WhatIfOutput is every decision of a trace, re-decided.
type WhatIfOutput struct {
	Trace     string     `json:"trace"`
	Recorded  string     `json:"recorded_rules"`
	Edited    string     `json:"edited_rules"`
	Decisions int        `json:"decisions"`
	Changed   []Decision `json:"changed"`
	Notes     []string   `json:"notes"`
}

// Decision is one recorded decision the edited rules make otherwise.
type Decision struct {
	Iteration         int    `json:"iteration"`
	Cycle             int    `json:"cycle"`
	Stage             string `json:"stage"`
	Recorded          string `json:"recorded_rule"`
	RecordedObjective string `json:"recorded_objective"`
	Edited            string `json:"edited_rule"`
	EditedObjective   string `json:"edited_objective"`
	EndsRun           bool   `json:"ends_run"`
	Line              int    `json:"line"`
}

func (v *verbs) whatIf(ctx context.Context, _ *sdk.CallToolRequest, in WhatIfInput) (*sdk.CallToolResult, WhatIfOutput, error) {
	tp, err := v.path("trace", in.Trace)
	if err != nil {
		return nil, WhatIfOutput{}, err
	}
	rp, err := v.path("rules", in.Rules)
	if err != nil {
		return nil, WhatIfOutput{}, err
	}
	edited, err := engine.LoadRulesFile(rp)
	if err != nil {
		return nil, WhatIfOutput{}, err
	}
	rec, err := replay.ReadRecording(tp)
	if err != nil {
		return nil, WhatIfOutput{}, err
	}
	res, err := analysis.WhatIf(rec, edited)
	if err != nil {
		return nil, WhatIfOutput{}, err
	}
	out := WhatIfOutput{Trace: in.Trace, Recorded: res.Recorded, Edited: res.Edited, Decisions: len(res.Decisions),
		Changed: []Decision{}, Notes: append([]string{}, res.Notes...)}
	for _, d := range res.Changes() {
		out.Changed = append(out.Changed, Decision{Iteration: d.Iteration, Cycle: d.Cycle, Stage: d.Stage,
			Recorded: d.Recorded, RecordedObjective: d.RecordedObjective, Edited: d.Edited,
			EditedObjective: d.EditedObjective, EndsRun: d.EndsRun, Line: d.Line})
	}
	var text strings.Builder
	if err := res.WriteText(&text, in.All); err != nil {
		return nil, WhatIfOutput{}, err
	}
	return textResult(text.String()), out, nil
}
