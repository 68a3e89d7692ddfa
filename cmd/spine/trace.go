package main

import (
	"context"
	"fmt"

	"github.com/agentspine/spine/spine"
)

func init() {
	register(&command{
		name:    "trace",
		summary: "show a trace as a readable timeline",
		usage:   "show [--all] FILE",
		run:     runTrace,
	})
}

func runTrace(ctx context.Context, io stdio, args []string) int {
	c := commands["trace"]
	fs := newFlags(c, io)
	all := fs.Bool("all", false, "also show state changes, effector requests and every rule evaluation")
	if len(args) == 0 || args[0] != "show" {
		if len(args) > 0 && (args[0] == "--help" || args[0] == "-h" || args[0] == "-help") {
			fs.Usage()
			return exitOK
		}
		fmt.Fprintln(io.err, "spine trace: expected the subcommand show")
		fs.Usage()
		return exitUsage
	}
	if code, done := parseFlags(fs, args[1:]); done {
		return code
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(io.err, "spine trace show: expected one trace file")
		return exitUsage
	}
	path := fs.Arg(0)
	tf, err := spine.ReadTraceFile(path)
	if err != nil && tf == nil {
		fmt.Fprintf(io.err, "spine trace show: %v\n", err)
		return exitFail
	}
	tl := &timeline{w: io.out, all: *all}
	for _, l := range tf.Lines {
		if lerr := tl.line(l.Raw); lerr != nil {
			fmt.Fprintf(io.err, "spine trace show: %s:%d: %v\n", path, l.Line, lerr)
			return exitFail
		}
	}
	if err != nil {
		fmt.Fprintf(io.err, "spine trace show: %v\n", err)
		return exitFail
	}
	if tf.Torn != nil {
		fmt.Fprintf(io.err, "spine trace show: %s: %s\n", path, tf.Torn)
	}
	return exitOK
}
