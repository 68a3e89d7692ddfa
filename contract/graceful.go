package contract

import (
	"fmt"
	"strings"
)

// GracefulFailure is R2's word to the user when a task is abandoned (seed 001, R2):
// instead of a bare failure, the partial result — what was done across the subtasks
// that matched — what failed and why, and two or three concrete next moves. It travels
// in the FinalResult.
type GracefulFailure struct {
	TaskID    string          `json:"task_id"`
	Summary   string          `json:"summary"`
	Completed []CompletedPart `json:"completed"`
	Failed    []string        `json:"failed"`
	NextMoves []string        `json:"next_moves"`
}

// CompletedPart is a subtask that matched in some round: part of the partial result.
type CompletedPart struct {
	Round     int    `json:"round"`
	SubTaskID string `json:"subtask_id"`
	Intent    string `json:"intent"`
	Output    any    `json:"output"`
}

// Text renders the message for a terminal: one fact a line, long text clipped.
func (g *GracefulFailure) Text() string {
	var b strings.Builder
	b.WriteString(g.Summary + "\n")
	b.WriteString(g.Details())
	b.WriteString("Next moves:\n")
	for i, m := range g.NextMoves {
		fmt.Fprintf(&b, "  %d. %s\n", i+1, m)
	}
	return b.String()
}

// Details renders what was done and what failed, without the summary and the next
// moves: for a display that has shown those with the FinalResult already.
func (g *GracefulFailure) Details() string {
	var b strings.Builder
	if len(g.Completed) > 0 {
		b.WriteString("Done so far:\n")
		for _, c := range g.Completed {
			fmt.Fprintf(&b, "  - %s: %s\n", clipText(c.Intent, 70), clipText(fmt.Sprint(c.Output), 200))
		}
	}
	if len(g.Failed) > 0 {
		b.WriteString("What failed:\n")
		for _, f := range g.Failed {
			b.WriteString("  - " + f + "\n")
		}
	}
	return b.String()
}

// clipText folds whitespace and keeps at most n runes, marking a cut with "…".
func clipText(s string, n int) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) <= n {
		return string(r)
	}
	return string(r[:n-1]) + "…"
}
