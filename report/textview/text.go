package textview

import (
	"fmt"
	"io"

	"github.com/agentspine/spine/internal/termtext"
)

// printLine writes one line: the formatted text with nothing a value brings (a newline,
// an escape sequence) left raw, then a newline. The format itself must be one line.
func printLine(w io.Writer, format string, a ...any) {
	fmt.Fprintln(w, termtext.Line(fmt.Sprintf(format, a...)))
}

// oneLine folds text onto one escaped line of at most n characters.
func oneLine(text string, n int) string { return termtext.OneLine(text, n) }

// Plural is n with its noun: "1 trace", "2 traces".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
