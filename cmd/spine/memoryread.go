package main

import (
	"fmt"
	"strings"

	"github.com/agentspine/spine/contract"
)

// memoryQueryLine shows R2's read of memory in one line: the intent and how many tools
// and targets were asked.
func memoryQueryLine(q *contract.MemoryQuery) string {
	var parts []string
	if q.Intent != "" {
		parts = append(parts, fmt.Sprintf("intent %q", oneLine(q.Intent, 60)))
	}
	parts = append(parts, fmt.Sprintf("%d tool(s), %d target(s) asked", len(q.Tools), len(q.Targets)))
	return strings.Join(parts, " · ")
}

// memoryAnswerLine shows what memory told the planner: the sizes of its sets and the
// verdicts by action, or the error of a read that failed.
func memoryAnswerLine(a *contract.MemoryAnswer) string {
	if a.Error != "" {
		return "memory could not be read: " + oneLine(a.Error, 90)
	}
	line := fmt.Sprintf("avoid %d · prefer %d · caution %d", len(a.Avoid), len(a.Exploit), len(a.Caution))
	for _, v := range a.Verdicts {
		line += fmt.Sprintf(" · %s %s", strings.ToLower(v.Action), v.Pair)
	}
	return line
}
