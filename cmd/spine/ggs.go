package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentspine/spine/ggs"
	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/rules"
	"github.com/agentspine/spine/spine/engine"
	"github.com/agentspine/spine/spine/ruleset"
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
		opts := &ggsFlags{
			rulesFile:  rulesFile,
			jsonErrors: jsonErrors,
			bound:      &bound,
		}
		c.RunE = func(c *cobra.Command, args []string) error {
			return runGGS(c.Context(), io, fs, opts)
		}
		return c
	})
}

// ggsFlags are spine ggs's flags.
type ggsFlags struct {
	rulesFile  *string
	jsonErrors *bool
	bound      *ggs.Bound
}

// runGGS runs ggs.Filter over stdin and stdout. A line it cannot use is reported on
// stderr with its number and skipped; the exit status is then 1. A task evicted to stay
// within the bound is reported on stderr and does not change the exit status; a later
// message for it is a bad line (ggs.EvictedError), and so never decided afresh.
func runGGS(ctx context.Context, io stdio, fs *pflag.FlagSet, opts *ggsFlags) error {
	rulesFile, jsonErrors, bound := opts.rulesFile, *opts.jsonErrors, *opts.bound
	for _, f := range []struct {
		name string
		v    int
	}{{"max-open-tasks", bound.MaxOpen}, {"idle-lines", bound.IdleLines}, {"max-evicted-tasks", bound.MaxEvicted}} {
		if f.v < 0 {
			return usageErrorf("--%s %d: want a count ≥ 0 (0: no limit)", f.name, f.v)
		}
	}
	if fs.NArg() > 0 {
		return usageErrorf("unexpected argument %q: messages are read from stdin", fs.Arg(0))
	}
	var rs *ruleset.RuleSet
	var err error
	if *rulesFile != "" {
		rs, err = engine.LoadRulesFile(*rulesFile)
	} else {
		rs, err = engine.LoadRulesFS(rules.FS, rules.GGS)
	}
	var solver *ggs.Solver
	if err == nil {
		solver, err = ggs.New(rs)
	}
	if err != nil {
		// Errors of package ggs already start with "ggs: ", which Run says too.
		return errors.New(strings.TrimPrefix(err.Error(), "ggs: "))
	}
	bad := false
	hooks := ggs.StreamHooks{
		Bad: func(line int, err error) {
			bad = true
			showBadLine(io, jsonErrors, line, err)
		},
		Evicted: func(e ggs.Eviction) { showEviction(io, jsonErrors, bound, e) },
	}
	err = ggs.NewFilter(solver, bound).Run(ctx, io.in, io.rawOut, hooks)
	var se *ggs.StreamError
	switch {
	case errors.As(err, &se) && se.Write:
		return fmt.Errorf("writing stdout: %w", se.Err)
	case errors.As(err, &se):
		return fmt.Errorf("reading stdin: %w", se.Err)
	case err != nil:
		return err
	case bad: // the bad lines, already said, are the result
		return exitStatus(exitFail)
	}
	return nil
}

// showBadLine says on stderr why input line n was not decided.
func showBadLine(io stdio, jsonErrors bool, line int, err error) {
	// A decoder's error may quote the line's values whole; a line may be megabytes.
	msg := linecap.BoundQuotes(err.Error())
	if jsonErrors {
		b, _ := json.Marshal(struct {
			Line  int    `json:"line"`
			Error string `json:"error"`
		}{line, msg})
		fmt.Fprintf(io.rawErr, "%s\n", b)
		return
	}
	fmt.Fprintf(io.err, "line %d: %s\n", line, msg)
}

// showEviction says on stderr that a task was evicted, or its eviction forgotten.
func showEviction(io stdio, jsonErrors bool, bound ggs.Bound, e ggs.Eviction) {
	why := evictionText(e, bound)
	if e.Reason == ggs.EvictionForgotten {
		if jsonErrors {
			b, _ := json.Marshal(struct {
				Line      int    `json:"line"`
				Forgotten string `json:"forgotten"`
				EvictedAt int    `json:"evicted_at"`
				Reason    string `json:"reason"`
			}{e.Line, e.TaskID, e.EvictedAt, why})
			fmt.Fprintf(io.err, "%s\n", b)
			return
		}
		fmt.Fprintf(io.err, "line %d: forgot evicted task %s (evicted after line %d): %s\n", e.Line, linecap.ExcerptString(e.TaskID), e.EvictedAt, why)
		return
	}
	if jsonErrors {
		b, _ := json.Marshal(struct {
			Line    int    `json:"line"`
			Evicted string `json:"evicted"`
			Reason  string `json:"reason"`
		}{e.Line, e.TaskID, why})
		fmt.Fprintf(io.rawErr, "%s\n", b)
		return
	}
	fmt.Fprintf(io.err, "line %d: evicted task %s: %s\n", e.Line, linecap.ExcerptString(e.TaskID), why)
}

// evictionText says why a task was evicted, or its eviction forgotten, and what a later
// message for it does.
func evictionText(e ggs.Eviction, b ggs.Bound) string {
	switch e.Reason {
	case ggs.EvictionForgotten:
		return fmt.Sprintf("more than %d evicted tasks remembered (--max-evicted-tasks); a later message for it starts a new task", b.MaxEvicted)
	case ggs.EvictedIdle:
		return fmt.Sprintf("no message for it in %d lines (--idle-lines); a later message for it is refused", b.IdleLines)
	}
	return fmt.Sprintf("more than %d tasks open (--max-open-tasks), and it was the least recently used; a later message for it is refused", b.MaxOpen)
}
