package main

import (
	"errors"
	"fmt"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/spine/trace"
	"github.com/spf13/cobra"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		return groupCommand("trace", "show a trace as a readable timeline and check its hash chain, tabulate its GGS rounds, or compare two traces", "subcommand")
	})
	addCommand("trace", func(io stdio) *cobra.Command {
		var all bool
		var verifyKey *string
		c := &cobra.Command{
			Use:   "show [flags] FILE",
			Short: "show a trace as a readable timeline: every exchange, tool call, plan check and message; the hash chain checked",
			RunE: func(c *cobra.Command, args []string) error {
				return exitStatus(runTraceShow(io, all, *verifyKey, args))
			},
		}
		verifyKey = addVerifyKey(c.Flags())
		c.Flags().BoolVar(&all, "all", false, "also show state changes, effector requests and every rule evaluation, and full requests and responses")
		return c
	})
}

func runTraceShow(io stdio, all bool, verifyKey string, args []string) int {
	if len(args) != 1 {
		fmt.Fprintln(io.err, "spine trace show: expected one trace file")
		return exitUsage
	}
	ring, err := loadVerifyKey(verifyKey)
	if err != nil {
		fmt.Fprintf(io.err, "spine trace show: %v\n", err)
		return exitUsage
	}
	path := args[0]
	tf, err := trace.ReadFile(path)
	var nt *trace.NotATraceError
	if tf == nil || errors.As(err, &nt) {
		fmt.Fprintf(io.err, "spine trace show: %v\n", err)
		return exitFail
	}
	if ring != nil {
		// A trace that is not vouched for by a trusted key is not shown at all.
		rep, serr := tf.VerifySignature(ring)
		if serr != nil {
			fmt.Fprintf(io.err, "spine trace show: %s: %v\n", path, serr)
			return exitFail
		}
		fmt.Fprintf(io.err, "spine trace show: %s: %s (verified)\n", path, rep)
	} else if note := signatureNote(tf); note != "" {
		fmt.Fprintf(io.err, "spine trace show: %s: %s\n", path, note)
	}
	// The chain is checked first and a break announced before the timeline, and marked
	// where it is: what the trace says from there on is shown but not vouched for.
	cerr := tf.ChainErr
	breakAt := 0
	switch ce := tf.Broken(); {
	case ce != nil:
		breakAt = ce.Line
		fmt.Fprintf(io.err, "spine trace show: warning: %s: hash chain broken at %v; the lines from line %d on are shown as read, not verified\n", path, cerr, ce.Line)
	case cerr != nil && err == nil: // else the reader's error, reported below
		fmt.Fprintf(io.err, "spine trace show: warning: %s: %v\n", path, cerr)
	case !tf.Chain.Chained:
		fmt.Fprintf(io.err, "spine trace show: %s: %s: its lines carry no hashes to verify\n", path, tf.Chain)
	}
	if locked, _ := trace.Locked(path); locked {
		fmt.Fprintf(io.err, "spine trace show: %s is still being written by a run\n", path)
	}
	tl := &timeline{w: io.out, all: all}
	marked := false
	mark := func() {
		if breakAt > 0 && !marked {
			fmt.Fprintf(io.out, "%15s  !! hash chain broken at %v: not verified from here on\n", "", cerr)
			marked = true
		}
	}
	for i := range tf.Events {
		if tf.Events[i].Line >= breakAt {
			mark()
		}
		tl.event(&tf.Events[i])
	}
	mark()
	if err != nil {
		fmt.Fprintf(io.err, "spine trace show: %s\n", linecap.BoundQuotes(err.Error()))
		return exitFail
	}
	if inc := tf.Incomplete(); inc != "" {
		fmt.Fprintf(io.err, "spine trace show: %s: %s\n", path, inc)
	}
	return exitOK
}
