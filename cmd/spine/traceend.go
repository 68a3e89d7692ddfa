package main

import (
	"encoding/json"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/spine/trace"
)

// traceEnd is where a run's trace file ends: the last line that reached the file, and
// the write error that stopped it there (a full disk), nil when every line did.
type traceEnd struct {
	head  string
	lines int
	cut   error
}

// traceCut is a trace cut short (trace.Cut), as --json reports it.
type traceCut trace.Cut

func (e traceEnd) json() *traceCut {
	return (*traceCut)(trace.CutAt(trace.Mark{Line: e.lines, Head: e.head}, e.cut))
}

// traceIncomplete ends the output of a run whose trace was cut short: the FinalResult
// the trace could not take, then, as the last line on stderr, where the file ends. A
// trace that is whole prints nothing. The exit status is 1 when the trace was cut.
func traceIncomplete(io stdio, path string, end traceEnd, final *contract.FinalResult, code int) int {
	cut := end.json()
	if cut == nil {
		return code
	}
	if final != nil {
		if b, err := json.Marshal(final); err == nil {
			termtext.Printf(io.err, "spine run: the FinalResult the trace could not take: %s", b)
		}
	}
	termtext.Printf(io.err, "spine run: the trace %s is incomplete (%v): %s", path, end.cut, (*trace.Cut)(cut).Where())
	return exitFail
}
