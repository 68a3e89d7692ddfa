package main

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/clock"
	"github.com/agentspine/spine/internal/cli"
	"github.com/agentspine/spine/internal/termtext"
	"github.com/agentspine/spine/memory/memtext"
	"github.com/agentspine/spine/spine/trace"
	"github.com/agentspine/spine/taskrun"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "feedback [flags] TRACE",
			Short: "record the user's verdict on a finished task: a negative feedback in memory against the outcome GGS wrote",
			Args:  cli.ExactArgsCounted(1, "one trace file"),
		}
		fset := c.Flags()
		bad := fset.String("bad", "", "`WHY` the task's result is wrong (required): the content of the feedback record")
		dir := fset.String("memory", "", "memory store `DIR` the task ran with (required)")
		db := fset.String("db", "", "the same as --memory, as spine memory spells it")
		task := fset.String("task", "", "the task `ID` to judge, when the trace holds several")
		now := fset.String("now", "", "record at this `TIME` (RFC 3339) instead of the host clock")
		c.RunE = func(c *cobra.Command, args []string) error {
			switch {
			case strings.TrimSpace(*bad) == "":
				return cli.Usagef("--bad WHY is required: say what is wrong with the task's result")
			case *dir != "" && *db != "" && *dir != *db:
				return cli.Usagef("--memory %s and --db %s name different stores", *dir, *db)
			case *dir == "" && *db == "":
				return cli.Usagef("--memory DIR is required: the store the task ran with")
			}
			store := *dir
			if store == "" {
				store = *db
			}
			clock, err := nowFlag(*now)
			if err != nil {
				return err
			}
			// A file that is not a trace is said as every reader of traces says it.
			if tf, err := trace.ReadFile(args[0]); tf == nil || errors.As(err, new(*trace.NotATraceError)) {
				return cli.FileError(err)
			}
			t, err := taskrun.ReadFinishedTask(args[0], *task)
			if err != nil {
				return err
			}
			fb, err := taskrun.RecordFeedback(c.Context(), store, clock, t, strings.TrimSpace(*bad))
			if err != nil {
				return err
			}
			termtext.Printf(io.out, "task %s (%s, %s:%d): %q", t.ID, t.Final.Directive, t.Trace, t.FinalLine, t.Intent)
			memtext.Feedback(io.out, store, fb.Records, fb.Against, fb.Potentials)
			return nil
		}
		return c
	})
}

// nowFlag is the clock --now gives: the host's when it is empty.
func nowFlag(now string) (clock.Clock, error) {
	c, err := clock.At(now)
	if err != nil {
		return nil, cli.Usagef("--now %q: want an RFC 3339 time such as 2025-03-01T12:00:00Z", now)
	}
	return c, nil
}
