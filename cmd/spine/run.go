package main

import "io"

// Exit statuses shared by every subcommand.
const (
	exitOK    = 0
	exitFail  = 1 // the command ran and found a problem (bad input line, divergence, finding)
	exitUsage = 2 // the command line itself was wrong
	// exitMemoryLost: spine run ended, but Megrams GGS sent to memory did not reach the
	// store (the trace's memory_lost event lists them).
	exitMemoryLost = 3
)

// io bundles the standard streams a subcommand may use; subcommands never touch os.Std*.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}
