package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/report/textview"
	"github.com/agentspine/spine/spine/trace"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		return cli.GroupCommand("trace", "show a trace as a readable timeline and check its hash chain, tabulate its GGS rounds, or compare two traces", "subcommand")
	})
	addCommand("trace", func(io stdio) *cobra.Command {
		var all bool
		var verifyKey *string
		c := &cobra.Command{
			Use:   "show [flags] FILE",
			Short: "show a trace as a readable timeline: every exchange, tool call, plan check and message; the hash chain checked",
			Args:  cli.ExactArgs(1, "one trace file"),
			RunE: func(c *cobra.Command, args []string) error {
				return runTraceShow(io, all, *verifyKey, args[0])
			},
		}
		verifyKey = addVerifyKey(c.Flags())
		c.Flags().BoolVar(&all, "all", false, "also show state changes, effector requests and every rule evaluation, and full requests and responses")
		return c
	})
}

// runTraceShow shows one trace; warnings (a broken chain, an incomplete recording) go
// to stderr as it is shown, and an unreadable line ends it with an error.
func runTraceShow(io stdio, all bool, verifyKey string, path string) error {
	ring, err := loadVerifyKey(verifyKey)
	if err != nil {
		return cli.FileError(err)
	}
	tf, err := trace.ReadFile(path)
	var nt *trace.NotATraceError
	if tf == nil || errors.As(err, &nt) {
		return cli.FileError(err)
	}
	// A trace that is not vouched for by a trusted key is not shown at all. The chain is
	// checked first and a break announced before the timeline, and marked where it is:
	// what the trace says from there on is shown but not vouched for.
	if serr := textview.ShowNotes(io.err, "spine trace show", path, tf, ring, err); serr != nil {
		return serr
	}
	if locked, _ := trace.Locked(path); locked {
		fmt.Fprintf(io.err, "spine trace show: %s is still being written by a run\n", path)
	}
	textview.NewTimeline(io.out, all).Trace(tf)
	if err != nil {
		return errors.New(linecap.BoundQuotes(err.Error()))
	}
	if inc := tf.Incomplete(); inc != "" {
		fmt.Fprintf(io.err, "spine trace show: %s: %s\n", path, inc)
	}
	return nil
}
