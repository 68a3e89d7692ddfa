package textview

import (
	"fmt"

	"github.com/agentspine/spine/internal/termtext"
)

// oneLine folds text onto one escaped line of at most n characters.
func oneLine(text string, n int) string { return termtext.OneLine(text, n) }

// Plural is n with its noun: "1 trace", "2 traces".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
