package main

import (
	"io"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/runview"
	"github.com/agentspine/spine/taskrun"
)

// Exit statuses shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found a problem (bad input line, divergence, finding)
	exitUsage = 2 // the command line itself was wrong
	// exitMemoryLost: spine run ended, but Megrams GGS sent to memory did not reach the
	// store (the trace's memory_lost event lists them).
	exitMemoryLost = 3
	// exitOutOfRounds: spine play's designed GGS scenario ran out of rounds before the
	// rules ended the run (edited rules asked for a round the scenario does not hold).
	exitOutOfRounds = 3
)

// io bundles the standard streams a subcommand may use; subcommands never touch os.Std*.
//
// out and err are for a person: all that is written to them passes termtext's Block on
// the way, so no control code in a model's reply, a tool's output, a trace or a quoted
// file reaches the terminal, whatever a printer forgets. A field that must stay on one
// line (a file name, a summary in a table) still needs termtext.Line where it is printed.
// rawOut and rawErr are the same streams byte for byte: rawOut for output meant for
// programs (--json, a trace, an HTML page, an export), both for the display's own
// control codes (the spinner, a red warning). Nothing from outside is written raw.
type stdio struct {
	in             io.Reader
	out, err       io.Writer
	rawOut, rawErr io.Writer
}

// newStdio wraps the process's streams (or a test's) for one Run; flush writes what the
// text streams still hold (the start of a character no later write completed).
func newStdio(in io.Reader, stdout, stderr io.Writer) (s stdio, flush func()) {
	out, err := termtext.NewWriter(stdout), termtext.NewWriter(stderr)
	return stdio{in: in, out: out, err: err, rawOut: stdout, rawErr: stderr}, func() {
		_ = out.Flush()
		_ = err.Flush()
	}
}

// runCode is the exit status of a run's result (runview's Finish): 0 when the task was
// accepted or succeeded, 1 otherwise.
func runCode(accepted bool) int {
	if accepted {
		return exitOK
	}
	return exitFail
}

// traceIncomplete ends the output of a run whose trace was cut short
// (runview.Incomplete); the exit status is then 1, else code.
func traceIncomplete(io stdio, res taskrun.Result, code int) int {
	if runview.Incomplete(io.err, res) {
		return exitFail
	}
	return code
}
