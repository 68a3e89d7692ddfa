package main

import (
	"fmt"

	"github.com/agentspine/spine/memory"
)

// memoryLost reports Megrams of the run that did not reach the store and turns the exit
// status into exitMemoryLost: whatever the task's outcome, what it taught memory is
// missing. A run that already failed keeps its status.
func memoryLost(io stdio, w *memory.TallyReport, dir string, code int) int {
	if w == nil || w.Lost() == 0 {
		return code
	}
	first := ""
	if len(w.Failed) > 0 {
		first = "; first: " + w.Failed[0].Error
	}
	fmt.Fprintf(io.err, "spine run: memory: %d of %d Megram(s) GGS sent to %s did not reach the store%s (the trace's memory_lost event lists them)\n",
		w.Lost(), w.Sent, dir, first)
	if code == exitOK {
		return exitMemoryLost
	}
	return code
}
