package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/internal/cli"
)

func init() {
	addCommand("", func(io stdio) *cobra.Command {
		c := &cobra.Command{
			Use:   "ggs [flags] < messages.jsonl",
			Short: "run the Goal Gradient Solver as a JSONL filter over bus messages",
			Long: `Run the Goal Gradient Solver as a JSONL filter: one bus message per line on stdin, one
decision per line on stdout, any number of tasks interleaved by task_id.

Open tasks are bounded (--max-open-tasks, --idle-lines); an evicted task is named on
stderr with the input line after which it was evicted. A task is never forgotten
silently: a later message for an evicted task is refused with an error line naming the
task and that line, never decided on lost state (exit status 1). Evicted ids are
remembered exactly, up to --max-evicted-tasks; beyond it the oldest is dropped and that
is reported on stderr too, after which a message for that id starts a new task.`,
		}
		fs := c.Flags()
		rulesFile := fs.String("rules", "", "rule `FILE` to decide with instead of the built-in rules/ggs.yaml")
		jsonErrors := fs.Bool("json-errors", false, `report bad lines on stderr as JSON: {"line": N, "error": "..."}`)
		var bound ggs.Bound
		fs.IntVar(&bound.MaxOpen, "max-open-tasks", ggs.DefaultMaxOpenTasks, "`N` open tasks kept; beyond it the least recently used is evicted (0: no limit)")
		fs.IntVar(&bound.IdleLines, "idle-lines", 0, "evict a task with no message in `N` input lines (0: never)")
		fs.IntVar(&bound.MaxEvicted, "max-evicted-tasks", ggs.DefaultMaxEvictedTasks, "`N` evicted task ids remembered, so that a later message for one is refused, not decided afresh; beyond it the oldest is forgotten, and that is reported (0: no limit)")
		c.RunE = func(c *cobra.Command, args []string) error {
			if err := bound.Check(); err != nil {
				return cli.Usagef("--%v", err)
			}
			if len(args) > 0 {
				return cli.Usagef("unexpected argument %q: messages are read from stdin", args[0])
			}
			return runGGS(c.Context(), io, *rulesFile, ggs.StreamReport{Text: io.err, Raw: io.rawErr, JSON: *jsonErrors, Bound: bound})
		}
		return c
	})
}

// runGGS runs ggs.Filter over stdin and stdout. A line it cannot use is reported on
// stderr with its number and skipped; the exit status is then 1. A task evicted to stay
// within the bound is reported on stderr and does not change the exit status; a later
// message for it is a bad line (ggs.EvictedError), and so never decided afresh.
func runGGS(ctx context.Context, io stdio, rulesFile string, report ggs.StreamReport) error {
	solver, err := ggs.NewFromFile(rulesFile)
	if err != nil {
		// Errors of package ggs already start with "ggs: ", which Run says too.
		return errors.New(strings.TrimPrefix(err.Error(), "ggs: "))
	}
	err = ggs.NewFilter(solver, report.Bound).Run(ctx, io.in, io.rawOut, report.Hooks())
	var se *ggs.StreamError
	switch {
	case errors.As(err, &se) && se.Write:
		return fmt.Errorf("writing stdout: %w", se.Err)
	case errors.As(err, &se):
		return fmt.Errorf("reading stdin: %w", se.Err)
	case err != nil:
		return err
	case report.BadLines > 0: // the bad lines, already said, are the result
		return cli.Exit(exitFail)
	}
	return nil
}
