package main

import (
	"fmt"

	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/internal/termui"
)

// warn prints a warning on stderr, in red on a terminal. The colour is the spine's own;
// the message, which may quote a path or a rule, is escaped as all text is.
func warn(io stdio, msg string) {
	if termui.IsTerminal(io.rawErr) {
		fmt.Fprintf(io.rawErr, "\x1b[1;31mwarning: %s\x1b[0m\n", termtext.Block(msg))
		return
	}
	fmt.Fprintf(io.err, "warning: %s\n", msg)
}
