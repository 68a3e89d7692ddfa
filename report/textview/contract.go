package textview

import (
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
)

// One-line views of the role messages a run's display and a trace's timeline share.

// MemoryQueryLine shows R2's read of memory in one line: the intent and how many tools
// and targets were asked.
func MemoryQueryLine(q *contract.MemoryQuery) string {
	var parts []string
	if q.Intent != "" {
		parts = append(parts, fmt.Sprintf("intent %q", oneLine(q.Intent, 60)))
	}
	parts = append(parts, fmt.Sprintf("%d tool(s), %d target(s) asked", len(q.Tools), len(q.Targets)))
	return strings.Join(parts, " · ")
}

// MemoryAnswerLine shows what memory told the planner: the sizes of its sets and the
// verdicts by action, or the error of a read that failed.
func MemoryAnswerLine(a *contract.MemoryAnswer) string {
	if a.Error != "" {
		return "memory could not be read: " + oneLine(a.Error, 90)
	}
	line := fmt.Sprintf("avoid %d · prefer %d · caution %d", len(a.Avoid), len(a.Exploit), len(a.Caution))
	for _, v := range a.Verdicts {
		line += fmt.Sprintf(" · %s %s", strings.ToLower(v.Action), v.Pair)
	}
	return line
}

// TermFailure is a copy of g whose every item is one escaped line, for its Text: the
// items quote the models (a criterion, an output, a failure reason), and package
// contract, which renders them, stays below termtext.
func TermFailure(g *contract.GracefulFailure) *contract.GracefulFailure {
	c := *g
	c.Summary = termtext.Line(g.Summary)
	c.Completed = make([]contract.CompletedPart, len(g.Completed))
	for i, d := range g.Completed {
		d.Intent, d.Output = termtext.Line(d.Intent), termtext.Line(fmt.Sprint(d.Output))
		c.Completed[i] = d
	}
	line := func(xs []string) []string {
		out := make([]string, len(xs))
		for i, x := range xs {
			out[i] = termtext.Line(x)
		}
		return out
	}
	c.Failed, c.NextMoves = line(g.Failed), line(g.NextMoves)
	return &c
}
