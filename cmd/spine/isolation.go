package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/agentspine/spine/effectors/sandbox"
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

// warn prints a warning, in red on a terminal.
func warn(w io.Writer, msg string) {
	if isTerminal(w) {
		fmt.Fprintf(w, "\x1b[1;31mwarning: %s\x1b[0m\n", msg)
		return
	}
	fmt.Fprintf(w, "warning: %s\n", msg)
}
