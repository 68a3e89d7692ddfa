package main

import (
	"fmt"
	"io"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
)

// printLine writes one line of display: the formatted text, in which nothing that a
// value brings (a newline in a model's summary, a carriage return in a file name, an
// escape sequence) can start another line or reach the terminal raw, then a newline.
// The format itself must be one line.
func printLine(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, termtext.Line(fmt.Sprintf(format, a...)))
}

// termFailure is a copy of g whose every item is one escaped line, for its Text: the
// items quote the models (a criterion, an output, a failure reason), and package
// contract, which renders them, stays below termtext.
func termFailure(g *contract.GracefulFailure) *contract.GracefulFailure {
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
