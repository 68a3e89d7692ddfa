package mcpserve

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/runlog"
	"github.com/agentspine/spine/spine/trace"
)

// TraceInput is the arguments of the verbs that read one trace.
type TraceInput struct {
	Path string `json:"path" jsonschema:"the recorded trace (.trace.jsonl)"`
}

// readTrace reads a trace whole; an incomplete recording is read up to where it ends.
func (v *verbs) readTrace(p string) (*trace.File, error) {
	path, err := v.path("path", p)
	if err != nil {
		return nil, err
	}
	return trace.ReadFile(path)
}

func (v *verbs) loss(ctx context.Context, _ *sdk.CallToolRequest, in TraceInput) (*sdk.CallToolResult, runlog.Loss, error) {
	f, err := v.readTrace(in.Path)
	if err != nil {
		return nil, runlog.Loss{}, err
	}
	lt, err := runlog.Rounds(in.Path, f)
	if err != nil {
		return nil, runlog.Loss{}, err
	}
	var b strings.Builder
	if inc := f.Incomplete(); inc != "" {
		fmt.Fprintf(&b, "%s: %s\n", in.Path, inc)
	}
	textview.LossTable(&b, *lt)
	return textResult(b.String()), *lt, nil
}

// TimelineOutput is a trace's exchanges and messages in order, and how the run ended.
type TimelineOutput struct {
	Trace string         `json:"trace"`
	Run   string         `json:"run"`
	Items []TimelineItem `json:"items"`
	Ended string         `json:"ended"` // outcome (objective) and reason; "" when the trace has no halt
	Chain string         `json:"chain"`
}

// TimelineItem is one exchange (model, tool, plan check, memory) or message.
type TimelineItem struct {
	Seq       int64  `json:"seq"`
	At        string `json:"at"`
	Iteration int    `json:"iteration"`
	Kind      string `json:"kind"`
	Title     string `json:"title"`
	Summary   string `json:"summary"`
	Failed    bool   `json:"failed,omitempty"`
	Error     string `json:"error,omitempty"`
}

func (v *verbs) timeline(ctx context.Context, _ *sdk.CallToolRequest, in TraceInput) (*sdk.CallToolResult, TimelineOutput, error) {
	f, err := v.readTrace(in.Path)
	if err != nil {
		return nil, TimelineOutput{}, err
	}
	rep, err := report.Build(in.Path, f)
	if err != nil {
		return nil, TimelineOutput{}, err
	}
	out := TimelineOutput{Trace: in.Path, Run: rep.Run, Items: []TimelineItem{}, Chain: rep.Chain.Text}
	var b strings.Builder
	fmt.Fprintf(&b, "%s · run %s", termtext.Line(in.Path), termtext.Line(rep.Run))
	if rep.Intent != "" {
		fmt.Fprintf(&b, " · %s", termtext.Line(rep.Intent))
	}
	b.WriteString("\n")
	for _, it := range rep.Items {
		ti := TimelineItem{Seq: it.Seq, At: it.At, Iteration: it.Iteration, Kind: it.Kind, Title: it.Title,
			Summary: it.Summary, Failed: it.Failed, Error: it.Error}
		out.Items = append(out.Items, ti)
		mark := " "
		if it.Failed {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %8s  it%-2d %-8s %s", mark, it.At, it.Iteration, it.Kind, termtext.Line(it.Title))
		if it.Summary != "" {
			fmt.Fprintf(&b, " · %s", termtext.Line(it.Summary))
		}
		if it.Error != "" {
			fmt.Fprintf(&b, " · error: %s", termtext.Line(it.Error))
		}
		b.WriteString("\n")
	}
	if h := rep.Halt; h != nil {
		out.Ended = fmt.Sprintf("%s (objective %s)", h.Outcome, h.Objective)
		if h.Reason != "" {
			out.Ended += ": " + h.Reason
		}
		fmt.Fprintf(&b, "ended: %s after %d iteration(s)\n", termtext.Line(out.Ended), h.Iterations)
	}
	if rep.Incomplete != "" {
		fmt.Fprintf(&b, "incomplete: %s\n", rep.Incomplete)
	}
	if out.Chain != "" {
		fmt.Fprintln(&b, out.Chain)
	}
	return textResult(b.String()), out, nil
}
