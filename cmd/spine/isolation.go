package main

import (
	"fmt"
	"strings"

	"github.com/agentspine/spine/effectors/sandbox"
	"github.com/agentspine/spine/internal/termtext"
)

// netRules is the repeatable --allow-net flag.
type netRules []sandbox.NetRule

func (n *netRules) String() string {
	var parts []string
	for _, r := range *n {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, ",")
}

// Type names the value in --help.
func (n *netRules) Type() string { return "HOST[:PORT]" }

// Set parses one HOST[:PORT]; a comma-separated list is taken too.
func (n *netRules) Set(v string) error {
	for _, part := range strings.Split(v, ",") {
		r, err := sandbox.ParseNetRule(strings.TrimSpace(part))
		if err != nil {
			return err
		}
		*n = append(*n, r)
	}
	return nil
}

// warn prints a warning on stderr, in red on a terminal. The colour is the spine's own;
// the message, which may quote a path or a rule, is escaped as all text is.
func warn(io stdio, msg string) {
	if isTerminal(io.rawErr) {
		fmt.Fprintf(io.rawErr, "\x1b[1;31mwarning: %s\x1b[0m\n", termtext.Block(msg))
		return
	}
	fmt.Fprintf(io.err, "warning: %s\n", msg)
}
