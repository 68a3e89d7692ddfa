package main

import (
	"encoding/json"
	"fmt"

	"github.com/agentspine/spine/contract"
	"github.com/agentspine/spine/internal/termtext"
)

// traceEnd is where a run's trace file ends: the last line that reached the file, and
// the write error that stopped it there (a full disk), nil when every line did.
type traceEnd struct {
	head  string
	lines int
	cut   error
}

// traceCut is a trace cut short, as --json reports it.
type traceCut struct {
	Lines int    `json:"lines"`
	Head  string `json:"head,omitempty"`
	Error string `json:"error"`
}

func (e traceEnd) json() *traceCut {
	if e.cut == nil {
		return nil
	}
	return &traceCut{Lines: e.lines, Head: e.head, Error: e.cut.Error()}
}

// traceIncomplete ends the output of a run whose trace was cut short: the FinalResult
// the trace could not take, then, as the last line on stderr, where the file ends. A
// trace that is whole prints nothing. The exit status is 1 when the trace was cut.
func traceIncomplete(io stdio, path string, end traceEnd, final *contract.FinalResult, code int) int {
	if end.cut == nil {
		return code
	}
	if final != nil {
		if b, err := json.Marshal(final); err == nil {
			termtext.Printf(io.err, "spine run: the FinalResult the trace could not take: %s", b)
		}
	}
	where := "no line reached the file"
	if end.lines > 0 {
		where = fmt.Sprintf("its last complete line is line %d, whose hash is %s", end.lines, end.head)
	}
	termtext.Printf(io.err, "spine run: the trace %s is incomplete (%v): %s", path, end.cut, where)
	return exitFail
}
