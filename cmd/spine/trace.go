package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/agentspine/spine/internal/linecap"
	"github.com/agentspine/spine/spine"
)

func init() {
	register(&command{
		name:    "trace",
		summary: "show a trace as a readable timeline and check its hash chain, tabulate its GGS rounds, or compare two traces",
		usage:   "show [--all] FILE | loss [--json] TRACE... | diff A B",
		run:     runTrace,
	})
}

func runTrace(ctx context.Context, io stdio, args []string) int {
	c := commands["trace"]
	fs := newFlags(c, io)
	all := fs.Bool("all", false, "also show state changes, effector requests and every rule evaluation")
	// The subcommand is the first positional, so flags may come before it too:
	// `spine trace --all show FILE`.
	flags, positional := scanArgs(fs, args)
	if len(positional) > 0 {
		if sub, ok := traceSubcommands[args[positional[0]]]; ok {
			return sub(ctx, io, append(append([]string{}, args[:positional[0]]...), args[positional[0]+1:]...))
		}
	}
	if len(positional) == 0 || args[positional[0]] != "show" {
		if len(positional) == 0 && slices.ContainsFunc(flags, func(f flagArg) bool { return f.name == "h" || f.name == "help" }) {
			fs.Usage()
			return exitOK
		}
		fmt.Fprintln(io.err, "spine trace: expected the subcommand show, loss or diff")
		fs.Usage()
		return exitUsage
	}
	rest := append(append([]string{}, args[:positional[0]]...), args[positional[0]+1:]...)
	if code, done := parseFlags(fs, rest); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, "spine trace show: expected one trace file")
		return exitUsage
	}
	path := fs.Arg(0)
	data, err := spine.ReadTraceBytes(path)
	if err != nil {
		fmt.Fprintf(io.err, "spine trace show: %v\n", err)
		return exitFail
	}
	tf, err := spine.ReadTrace(path, bytes.NewReader(data))
	if herr := spine.CheckTraceHeader(path, tf, err); herr != nil {
		fmt.Fprintf(io.err, "spine trace show: %v\n", herr)
		return exitFail
	}
	// The chain is checked first and a break announced before the timeline, and marked
	// where it is: what the trace says from there on is shown but not vouched for.
	chain, cerr := spine.VerifyChain(bytes.NewReader(data))
	breakAt := 0
	var ce *spine.ChainError
	switch {
	case errors.As(cerr, &ce):
		breakAt = ce.Line
		fmt.Fprintf(io.err, "spine trace show: warning: %s: hash chain broken at %v; the lines from line %d on are shown as read, not verified\n", path, cerr, ce.Line)
	case cerr != nil && err == nil: // else the reader's error, reported below
		fmt.Fprintf(io.err, "spine trace show: warning: %s: %v\n", path, cerr)
	case !chain.Chained:
		fmt.Fprintf(io.err, "spine trace show: %s: %s: its lines carry no hashes to verify\n", path, chain)
	}
	if locked, _ := spine.TraceLocked(path); locked {
		fmt.Fprintf(io.err, "spine trace show: %s is still being written by a run\n", path)
	}
	tl := &timeline{w: io.out, all: *all}
	marked := false
	mark := func() {
		if breakAt > 0 && !marked {
			fmt.Fprintf(io.out, "%15s  !! hash chain broken at %v: not verified from here on\n", "", cerr)
			marked = true
		}
	}
	for _, l := range tf.Lines {
		if l.Line >= breakAt {
			mark()
		}
		if lerr := tl.line(l.Raw); lerr != nil {
			fmt.Fprintf(io.err, "spine trace show: %s:%d: %s\n", path, l.Line, linecap.BoundQuotes(lerr.Error()))
			return exitFail
		}
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
