package main

import (
	"fmt"
	"io"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/report/textview"
)

// printLine writes one line of display: the formatted text, in which nothing that a
// value brings (a newline in a model's summary, a carriage return in a file name, an
// escape sequence) can start another line or reach the terminal raw, then a newline.
// The format itself must be one line.
func printLine(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, termtext.Line(fmt.Sprintf(format, a...)))
}

// termFailure is g with every item one escaped line (textview.TermFailure).
var termFailure = textview.TermFailure
